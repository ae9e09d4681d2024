import type { AppErrorShape } from '../../../src-shared/errors.js';
import type { ProcessorJob, ProcessorProgress, ProcessorResult } from '../processor.js';

/** What a job worker is started with (its workerData): it starts its mesh workers at once. */
export interface JobWorkerData {
  workers: number;
  meshWorkerScript: string;
}

/** First and only message to a job worker. */
export interface JobWorkerStart {
  job: ProcessorJob;
}

/** What a job worker sends back: any number of progress and log messages, then done or error. */
export type JobWorkerMessage =
  | { type: 'progress'; progress: ProcessorProgress }
  | { type: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; msg: string; data?: Record<string, unknown> }
  | { type: 'done'; result: ProcessorResult }
  | { type: 'error'; error: AppErrorShape };
