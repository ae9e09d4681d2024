import { z } from 'zod';
import type { JobErrorSchema, JobState, MeshChoice } from '../../src-shared/jobs.js';

/** A job as the queue holds it: what the store reads and writes, the runner drives, the manager shows. */

/** Addresses of a connection given on the command line; the secret is never stored. */
export const StoredConnectionSchema = z.object({
  baseUrl: z.string(),
  authUrl: z.string(),
  audience: z.string(),
  clientId: z.string(),
});
export type StoredConnection = z.infer<typeof StoredConnectionSchema>;

export const ProgressSchema = z.object({
  fraction: z.number().min(0).max(1).optional(),
  bytesDone: z.number().nonnegative().optional(),
  bytesTotal: z.number().nonnegative().optional(),
  stage: z.string().optional(),
});
export type JobProgress = z.infer<typeof ProgressSchema>;
export type JobError = z.infer<typeof JobErrorSchema>;

export interface InputRecord {
  name: string;
  packagePath?: string;
  extension?: string;
  bytes?: number;
  uploadUrl?: string;
  notifyUrl?: string;
  uploaded: boolean;
  notified: boolean;
}

export interface OutputRecord {
  idx: number;
  structures: string[];
  extension: string;
  status: 'pending' | 'saved';
  /** Where it was saved; while pending again (a retry on a new service job), the earlier attempt's file. */
  path?: string;
  bytes?: number;
  note?: string;
}

export interface JobRecord {
  id: string;
  batchId?: string;
  state: JobState;
  remoteJobId?: string;
  profileId: string;
  profileName: string;
  connection?: StoredConnection;
  serviceUrl?: string;
  seriesId: string;
  scanName: string;
  seriesDescription: string;
  sourceFiles: string[];
  meshes: MeshChoice[];
  options?: Record<string, unknown>;
  deidentify: boolean;
  /** Send de-identified even if the pixels may show patient data (burned-in annotation). */
  acceptBurnedIn?: boolean;
  /** The patient's name, for the {patient} naming field: stored only when the naming pattern asks for it. */
  patientName?: string;
  outputDir: string;
  namingTemplate: string;
  priority: number;
  progress: JobProgress;
  error?: JobError;
  resumeState?: JobState;
  createSentAt?: string;
  attempts: number;
  owner?: string;
  ownerPid?: number;
  leaseUntil?: number;
  /** Its place in the order jobs were submitted, across batches: lists and the queue follow it. */
  submissionSeq: number;
  createdAt: string;
  updatedAt: string;
  startedAt?: string;
  finishedAt?: string;
  inputs: InputRecord[];
  outputs: OutputRecord[];
}

/** What a submission gives; the store fills in the state, progress, timestamps and the rest. */
export type NewJob = Pick<
  JobRecord,
  | 'id'
  | 'batchId'
  | 'profileId'
  | 'profileName'
  | 'connection'
  | 'seriesId'
  | 'scanName'
  | 'seriesDescription'
  | 'sourceFiles'
  | 'meshes'
  | 'options'
  | 'deidentify'
  | 'acceptBurnedIn'
  | 'patientName'
  | 'outputDir'
  | 'namingTemplate'
> & { priority?: number };

/** Fields of the job row that code may change besides its state. */
export interface JobPatch {
  remoteJobId?: string | null;
  serviceUrl?: string | null;
  progress?: JobProgress;
  error?: JobError | null;
  resumeState?: JobState | null;
  createSentAt?: string | null;
  attempts?: number;
  priority?: number;
}

/**
 * A change to an input; `null` forgets an address. The store forgets each address by itself once it
 * is spent (the upload done, the service notified) and all of them when the job ends (job-writes.ts).
 */
export type InputPatch = Partial<Omit<InputRecord, 'name' | 'uploadUrl' | 'notifyUrl'>> & {
  uploadUrl?: string | null;
  notifyUrl?: string | null;
};

/** What goes with a state change, in the same commit. */
export interface TransitionExtras {
  /** Synced to the disk before it returns (see JobStore). */
  durable?: boolean;
  /** Inputs changed with the state (upload addresses received, an upload done). */
  inputs?: { name: string; patch: InputPatch }[];
  /** The remote job is gone or replaced: forget its upload addresses, what was sent and fetched. */
  forgetRemote?: boolean;
}

export interface JobEvent {
  seq: number;
  at: string;
  kind: string;
  from?: JobState;
  to?: JobState;
  detail?: Record<string, unknown>;
}
