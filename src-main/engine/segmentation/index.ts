/**
 * Real segmentation for the embedded local engine: grey-value thresholds derived from each scan's
 * histogram, connected-component filtering, marching cubes in worker threads, Taubin smoothing,
 * meshoptimizer simplification and STL / PLY / OBJ / Draco writers.
 */
import { Worker } from 'node:worker_threads';
import { AppError } from '../../../src-shared/errors.js';
import { silentLogger, type Logger } from '../../logging/logger.js';
import { workerScript } from '../../platform/worker-entry.js';
import type { Processor, ProcessorJob, ProcessorProgress, ProcessorResult } from '../processor.js';
import type { JobWorkerMessage, JobWorkerStart } from './job-protocol.js';
import { describeStructure, validateSpec } from './plan.js';
import { defaultWorkerCount, MESH_WORKER_ENTRY } from './worker-pool.js';

export { LOCAL_STRUCTURES } from './plan.js';

const JOB_WORKER_ENTRY = 'engine/segmentation/job-worker.entry.ts';

export function createSegmentationProcessor(opts: { logger?: Logger; workers?: number } = {}): Processor {
  const log = opts.logger ?? silentLogger;
  const workers = opts.workers ?? defaultWorkerCount();
  return {
    validate: (spec) => validateSpec(spec),
    describe: (structure) => describeStructure(structure),
    process: (job, onProgress, signal) => runInWorker(job, onProgress, signal, workers, log),
  };
}

async function runInWorker(
  job: ProcessorJob,
  onProgress: (p: ProcessorProgress) => void,
  signal: AbortSignal,
  workers: number,
  log: Logger,
): Promise<ProcessorResult> {
  if (signal.aborted) throw new AppError('canceled', 'The job was canceled.');
  const [jobScript, meshScript] = await Promise.all([
    workerScript(JOB_WORKER_ENTRY),
    workerScript(MESH_WORKER_ENTRY),
  ]);
  if (signal.aborted) throw new AppError('canceled', 'The job was canceled.');
  const started = Date.now();
  return new Promise<ProcessorResult>((resolve, reject) => {
    // A self-contained bundle: no need for the parent's flags (e.g. a TypeScript loader in tests).
    const worker = new Worker(jobScript, { execArgv: [] });
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      fn();
      void worker.terminate();
    };
    const onAbort = (): void => finish(() => reject(new AppError('canceled', 'The job was canceled.')));
    signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: JobWorkerMessage) => {
      switch (m.type) {
        case 'progress':
          if (!settled) onProgress(m.progress);
          break;
        case 'log':
          log[m.level](m.msg, { jobId: job.jobId, ...m.data });
          break;
        case 'done':
          log.info('segmentation done', { jobId: job.jobId, ms: Date.now() - started });
          finish(() => resolve(m.result));
          break;
        case 'error':
          finish(() =>
            reject(
              new AppError(m.error.code, m.error.message, {
                ...(m.error.action ? { action: m.error.action } : {}),
                ...(m.error.retryable !== undefined ? { retryable: m.error.retryable } : {}),
              }),
            ),
          );
          break;
      }
    });
    worker.on('error', (e) =>
      finish(() =>
        reject(new AppError('internal', `The segmentation worker failed: ${e.message}`, { cause: e })),
      ),
    );
    worker.on('exit', (code) =>
      finish(() =>
        reject(new AppError('internal', `The segmentation worker stopped unexpectedly (exit code ${code}).`)),
      ),
    );
    const start: JobWorkerStart = { job, workers, meshWorkerScript: meshScript };
    worker.postMessage(start);
  });
}
