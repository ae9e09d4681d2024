import type { PollResult } from '../../src-shared/job-spec.js';
import type { JobState, JobView } from '../../src-shared/jobs.js';
import type { Connections } from '../connections/connection-resolver.js';
import type { Logger } from '../logging/logger.js';
import { DEFAULT_POLL, type PollPolicy } from '../service/retry.js';
import type { JobPatch, JobProgress, JobRecord, TransitionExtras } from './job-record.js';
import type { JobStore } from './job-store.js';
import type { JobGate, PrioritySlots } from './slots.js';

/** What the runner and its phases (input, processing, output) share: their needs, and one run's state. */

/**
 * What the runner needs of the scans side (ScanService): find a series again and package it. The
 * package is a copy of patient data: it is written readable by the user only from its first byte.
 */
export interface ScanSource {
  intake(paths: string[], opts?: { signal?: AbortSignal }): Promise<unknown>;
  series(id: string): { id: string } | undefined;
  packageForUpload(
    id: string,
    opts: {
      deidentify: boolean;
      acceptBurnedIn?: boolean;
      /** False: store-only zip (the loopback engine); deflate otherwise. */
      compress?: boolean;
      outDir: string;
      onProgress?: (done: number, total: number) => void;
      signal?: AbortSignal;
    },
  ): Promise<{ path: string; extension: string; bytes: number }>;
  /** Lets go of series and the unpacked copies that served only them. */
  forget(ids: readonly string[]): Promise<void>;
}

export interface QueuePolicy extends PollPolicy {
  /** Wait before the first poll of a job that has just started processing (the service needs time anyway). */
  firstPollDelayMs: number;
  /** After a step failed in a way that may pass (network down, service busy): first wait, longest wait. */
  transientBaseMs: number;
  transientMaxMs: number;
  /** A job that keeps failing that way this long is marked failed (it can be retried). */
  giveUpAfterMs: number;
  /**
   * A remote service that answers a poll "no such job" (404) is asked again for this long before the
   * job fails: the interface does not say what 404 means there (§7), and a job just created may not be
   * visible to every server of a service at once.
   */
  unknownJobGraceMs: number;
}

export const DEFAULT_QUEUE_POLICY: QueuePolicy = {
  // The interface's poll spacing, kept in one place (service/retry.ts).
  ...DEFAULT_POLL,
  firstPollDelayMs: 1_000,
  transientBaseMs: 5_000,
  transientMaxMs: 5 * 60_000,
  // A night: the technician who queued scans at five expects them in the morning.
  giveUpAfterMs: 12 * 3600_000,
  unknownJobGraceMs: 2 * 60_000,
};

/** What the UI shows while a step is being retried: the error, and when the next try is. */
export type JobTrouble = NonNullable<JobView['trouble']>;

export interface RunnerDeps {
  store: JobStore;
  scans: ScanSource;
  connections: Connections;
  slots: { prepare: PrioritySlots; upload: PrioritySlots; download: PrioritySlots };
  gate: JobGate;
  packagesDir: string;
  policy: QueuePolicy;
  logger: Logger;
  /** Progress that is shown but not written on every byte. */
  onProgress(jobId: string, progress: JobProgress): void;
  /** A step is failing and will be tried again (undefined: it works again). Shown, not stored. */
  onTrouble(jobId: string, trouble: JobTrouble | undefined): void;
  /** After each committed change of the job. */
  onChanged(job: JobRecord): void;
}

export type StopReason = 'cancel' | 'shutdown';

/** The name of the one input a job sends. */
export const CBCT = 'cbct';

/** One run of one job, as its phases see it. */
export interface JobRun {
  readonly d: RunnerDeps;
  readonly jobId: string;
  readonly log: Logger;
  /** Aborts on a cancel or a shutdown. */
  readonly signal: AbortSignal;
  /**
   * Aborts when the user cancels, and a few seconds after a shutdown: a shutdown lets a job creation
   * already sent finish if it can, so that its id is not lost.
   */
  readonly cancelSignal: AbortSignal;
  /** The finished poll result: its download addresses are short-lived, so they are never stored. */
  result: PollResult | undefined;
  /** New remote jobs created in a row because upload addresses were refused. */
  recreated: number;
  /** When this run first read the finished job's outputs: those still coming are waited for a while. */
  comingSince?: number | undefined;
  /** Polls of the remote job so far: a poll step tried again after a fault goes on at the spacing it had. */
  polls: number;
  /** When the service first said it does not know the remote job, since its last answer about it. */
  unknownSince: number | undefined;
  /** Set while a poll waits: wakes it (the user is looking at this job). */
  wakePoll: (() => void) | undefined;
  /** The job's priority now (the user may raise it at any time). */
  priority(): number;
  /**
   * Commits a state change with what goes with it (with the other changes of its turn of the event
   * loop), logs it and tells the manager; resolves once it is committed. Refused once the run was
   * stopped, unless `evenIfStopped` (a remote job's id is kept whatever happens).
   */
  transition(
    job: JobRecord,
    to: JobState,
    patch?: JobPatch,
    detail?: Record<string, unknown>,
    extras?: TransitionExtras & { evenIfStopped?: boolean },
  ): Promise<JobRecord>;
}
