/**
 * Worker thread that runs one segmentation job from start to end, so that neither the app's main
 * thread nor the engine's HTTP event loop ever waits on it. The parent ends it with terminate() to
 * cancel; its slab workers end with it.
 */
import { parentPort } from 'node:worker_threads';
import { isAppError } from '../../../src-shared/errors.js';
import type { Logger } from '../../logging/logger.js';
import type { ProcessorJob } from '../processor.js';
import { runSegmentationJob } from './run-job.js';
import type { JobWorkerMessage, JobWorkerStart } from './job-protocol.js';

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

port.once('message', (start: JobWorkerStart) => {
  const job: ProcessorJob = start.job;
  runSegmentationJob(job, {
    workers: start.workers,
    meshWorkerScript: start.meshWorkerScript,
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
