/**
 * Real segmentation for the embedded local engine: grey-value thresholds derived from each scan's
 * histogram, connected-component filtering, marching cubes in worker threads, Taubin smoothing,
 * meshoptimizer simplification and STL / PLY / OBJ / Draco writers.
 */
import type { Worker } from 'node:worker_threads';
import { AppError } from '../../../src-shared/errors.js';
import { silentLogger, type Logger } from '../../logging/logger.js';
import type { Processor, ProcessorJob, ProcessorProgress, ProcessorResult } from '../processor.js';
import type { JobWorkerMessage, JobWorkerStart } from './job-protocol.js';
import { hasExited, startJobWorker, takeEarlyJobWorker } from './job-worker-start.js';
import { describeStructure, tissueOf, validateSpec } from './plan.js';
import { resolutionRefusal } from './class-evidence.js';
import { defaultWorkerCount } from './worker-pool.js';

export { LOCAL_STRUCTURES } from './plan.js';

export function createSegmentationProcessor(opts: { logger?: Logger; workers?: number } = {}): Processor {
  const log = opts.logger ?? silentLogger;
  const ready = new ReadyJobWorker(opts.workers ?? defaultWorkerCount());
  return {
    validate: (spec) => validateSpec(spec),
    checkScan: (structures, voxelMm) => scanRefusal(structures, voxelMm),
    describe: (structure) => describeStructure(structure),
    prepare: () => ready.prepare(),
    dispose: () => ready.dispose(),
    process: (job, onProgress, signal) => runInWorker(job, onProgress, signal, ready, log),
  };
}

/** How long a job worker made ready ahead of a job waits for one before it is let go. */
const READY_IDLE_MS = 120_000;

/**
 * At most one job worker started ahead of its job, with its mesh workers up and their simplifier
 * warm (job-worker.entry.ts): that start-up, a few hundred milliseconds of two cores, then overlaps
 * the client's packing and upload instead of following them. It holds no work and does not keep
 * the process alive, and goes after READY_IDLE_MS unused.
 */
class ReadyJobWorker {
  private waiting: { worker: Promise<Worker>; timer: NodeJS.Timeout } | undefined;

  constructor(private readonly workers: number) {}

  /** Starts a job worker unless one is waiting already (or takes the one started early). */
  prepare(): void {
    if (this.waiting) return;
    const worker = takeEarlyJobWorker(this.workers) ?? startJobWorker(this.workers);
    const timer = setTimeout(() => void this.dispose(), READY_IDLE_MS).unref();
    this.waiting = { worker, timer };
    worker.then(
      (w) => w.unref(),
      () => {
        if (this.waiting?.worker === worker) this.clear();
      },
    );
  }

  /** The waiting worker, or a new one (also when the waiting one has died meanwhile). */
  async take(): Promise<Worker> {
    const waiting = this.waiting;
    this.clear();
    let worker = await (
      waiting?.worker ??
      takeEarlyJobWorker(this.workers) ??
      startJobWorker(this.workers)
    ).catch(() => undefined);
    if (!worker || hasExited(worker)) worker = await startJobWorker(this.workers);
    worker.ref();
    return worker;
  }

  async dispose(): Promise<void> {
    const waiting = this.waiting;
    this.clear();
    if (waiting) await (await waiting.worker.catch(() => undefined))?.terminate();
  }

  private clear(): void {
    if (this.waiting) clearTimeout(this.waiting.timer);
    this.waiting = undefined;
  }
}

async function runInWorker(
  job: ProcessorJob,
  onProgress: (p: ProcessorProgress) => void,
  signal: AbortSignal,
  ready: ReadyJobWorker,
  log: Logger,
): Promise<ProcessorResult> {
  if (signal.aborted) throw new AppError('canceled', 'The job was canceled.');
  const worker = await ready.take();
  if (signal.aborted) {
    void worker.terminate();
    throw new AppError('canceled', 'The job was canceled.');
  }
  const started = Date.now();
  return new Promise<ProcessorResult>((resolve, reject) => {
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
    const start: JobWorkerStart = { job };
    worker.postMessage(start);
  });
}

/**
 * What the engine refuses to make of a scan with voxels `spacing` mm apart (x, y, z), known from
 * its headers before anything is packed: the first structure refused, with why; null when none is.
 */
function scanRefusal(structures: readonly string[], spacing: readonly number[]): string | null {
  for (const s of structures) {
    const t = tissueOf(s);
    const refusal = t ? resolutionRefusal(t, spacing) : null;
    if (refusal) return `${s}: ${refusal.message} ${refusal.action}`;
  }
  return null;
}
