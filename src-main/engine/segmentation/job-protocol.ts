import type { AppErrorShape } from '../../../src-shared/errors.js';
import type { ProcessorJob, ProcessorProgress, ProcessorResult } from '../processor.js';

/** First and only message to a job worker. */
export interface JobWorkerStart {
  job: ProcessorJob;
  workers: number;
  meshWorkerScript: string;
}

/** What a job worker sends back: any number of progress and log messages, then done or error. */
export type JobWorkerMessage =
  | { type: 'progress'; progress: ProcessorProgress }
  | { type: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; msg: string; data?: Record<string, unknown> }
  | { type: 'done'; result: ProcessorResult }
  | { type: 'error'; error: AppErrorShape };
