import type { ClientTuning } from '../connections/connection-resolver.js';
import type { CustomConnection } from '../connections/custom-connection.js';
import type { RunningEngine } from '../engine/local-engine.js';
import type { Logger } from '../logging/logger.js';
import type { ScanService } from '../scans/scan-service.js';
import type { SecretStore } from '../secrets/secret-store.js';
import type { ProfileStore } from '../settings/profile-store.js';
import type { QueuePolicy } from './job-run.js';

/** What the job queue is built from: the app's and the command line's parts, and their tuning. */
export interface JobManagerOptions {
  dataDir: string;
  profiles: ProfileStore;
  secrets: SecretStore;
  scans: ScanService;
  logger?: Logger;
  limits?: { uploads?: number; downloads?: number };
  localEngine?: () => Promise<RunningEngine>;
  /**
   * That engine when it has been started in this process (the app's, web mode's): a job canceled or
   * done there is discarded through it (job-files.ts). Without it, only the engine's folder goes.
   */
  runningLocalEngine?: () => Promise<RunningEngine> | undefined;
  /** Shows a saved mesh in the file manager (the Platform's); the system's tools when absent. */
  revealInFolder?: (path: string) => Promise<void>;
  /** Connections given on the command line; a submission without profileId uses the first. */
  connections?: CustomConnection[];
  /** Tests and benchmarks shorten the waits. */
  policy?: Partial<QueuePolicy>;
  client?: ClientTuning;
  /** How long a crashed process keeps its jobs when its pid cannot be checked (default 60 s). */
  leaseMs?: number;
  /** How often changes written by another process (the app, the command line) are looked for. */
  watchMs?: number;
  /**
   * How often unfinished jobs that no live process runs (their command line was killed) are taken
   * over here. The app's queue does this, so a job left by a killed command does not show as under
   * way forever; the command line's own queue does not (`scan2mesh resume` does it when asked).
   */
  adoptEveryMs?: number;
  /**
   * Keeps the user's pauses (the queue's, a batch's) in the job database, so that the app started
   * again keeps them. The app's queue does; a command's does not (its `resume` is asked to run).
   */
  keepPauses?: boolean;
}
