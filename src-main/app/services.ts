import type { EventName, EventPayload } from '../../src-shared/contract.js';
import type { Processor } from '../engine/processor.js';
import type { JobManager } from '../jobs/job-manager.js';

/**
 * The views of the core's services that more than one handler names. Each handler declares the few it
 * uses (VS Code's way), so a reader sees from its signature what it may touch and a test builds it from
 * those alone; core.ts, the composition root, is the only module that knows the whole set.
 */

/** The job queue as the renderer drives it; the command line uses more of JobManager. */
export type JobQueue = Pick<
  JobManager,
  | 'submit'
  | 'list'
  | 'get'
  | 'isPaused'
  | 'cancel'
  | 'retry'
  | 'remove'
  | 'prioritize'
  | 'pause'
  | 'resume'
  | 'pauseBatch'
  | 'resumeBatch'
  | 'reveal'
  | 'setLimits'
>;

/** The queue is opened on first need (its database lives in the data folder); every call gets the same one. */
export type OpenJobQueue = () => Promise<JobQueue>;

/** What a connection's capabilities are derived from: the local engine's own word on each name. */
export type StructureJudge = Pick<Processor, 'validate' | 'describe' | 'checkScan'>;

/** Tells whichever transports are attached that something changed. */
export interface EventSink {
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
}

/**
 * Hands a file on disk to the renderer: grants it and answers the address the renderer fetches it at.
 * The address is the transport's (each serves granted files at its own), so handlers never build one.
 */
export interface FileHandout {
  urlFor(path: string): string;
}
