/**
 * Worker thread that runs one segmentation job from start to end, so that neither the app's main
 * thread nor the engine's HTTP event loop ever waits on it. The parent ends it with terminate() to
 * cancel; its slab workers end with it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isAppError } from '../../../src-shared/errors.js';
import type { Logger } from '../../logging/logger.js';
import type { ProcessorJob } from '../processor.js';
import { runSegmentationJob } from './run-job.js';
import { createSlabPool } from './iso-surface.js';
import type { JobWorkerData, JobWorkerMessage, JobWorkerStart } from './job-protocol.js';

const port = parentPort;
if (!port) throw new Error('job-worker.entry must run in a worker thread');
const send = (m: JobWorkerMessage): void => port.postMessage(m);

function forwardingLogger(scope: string): Logger {
  const at =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (msg: string, data?: Record<string, unknown>): void =>
      send({ type: 'log', level, msg: `${scope}: ${msg}`, ...(data ? { data } : {}) });
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (s) => forwardingLogger(`${scope}.${s}`),
  };
}

// The mesh workers start now, before any job: a worker made ready ahead of a job (index.ts) has
// them up and their simplifier warm by the time the scan arrives.
const data = workerData as JobWorkerData;
const pool = createSlabPool(data.workers, data.meshWorkerScript);
// A failure here is the job's to report, when one comes.
pool.catch(() => {});

port.once('message', (start: JobWorkerStart) => {
  const job: ProcessorJob = start.job;
  runSegmentationJob(job, {
    workers: data.workers,
    pool,
    logger: forwardingLogger('segmentation'),
    onProgress: (p) => send({ type: 'progress', progress: p }),
  }).then(
    (result) => send({ type: 'done', result }),
    (e: unknown) =>
      send({
        type: 'error',
        error: isAppError(e)
          ? e.toShape()
          : {
              code: 'internal',
              message: `Segmentation failed: ${e instanceof Error ? e.message : String(e)}`,
            },
      }),
  );
});
