import { z } from 'zod';
import { ERROR_CODES } from './errors.js';

/**
 * A job as the user sees it (architecture.md): queued -> preparing -> submitting -> uploading ->
 * notifying -> processing -> downloading -> done, plus failed and canceled. Every transition is
 * persisted before it is acted on, so a restart resumes each job from where it stood.
 */
export const JOB_STATES = [
  'queued',
  'preparing',
  'submitting',
  'uploading',
  'notifying',
  'processing',
  'downloading',
  'done',
  'failed',
  'canceled',
] as const;
export type JobState = (typeof JOB_STATES)[number];

const TERMINAL_STATES: readonly JobState[] = ['done', 'failed', 'canceled'];
export const isTerminal = (s: JobState): boolean => TERMINAL_STATES.includes(s);

const TRANSITIONS: Record<JobState, readonly JobState[]> = {
  // Straight to a later step: a retried or resumed job whose remote job exists goes on where it
  // stood, because a job that has a jobId is never created again.
  // failed before it starts: the connection refuses its credentials (signing in comes first).
  queued: ['preparing', 'failed', 'canceled', 'uploading', 'notifying', 'processing', 'downloading'],
  preparing: ['submitting', 'failed', 'canceled', 'queued'],
  // processing directly: every input was given as a downloadUrl, so nothing is uploaded.
  submitting: ['uploading', 'processing', 'failed', 'canceled', 'queued'],
  // submitting again: the pre-signed address expired before the upload was done; a new job is created.
  uploading: ['notifying', 'submitting', 'failed', 'canceled', 'queued'],
  // uploading again: the next input of a job with several.
  notifying: ['uploading', 'processing', 'failed', 'canceled', 'queued'],
  processing: ['downloading', 'done', 'failed', 'canceled'],
  downloading: ['done', 'failed', 'canceled'],
  done: [],
  failed: ['queued'],
  canceled: ['queued'],
};

export function canTransition(from: JobState, to: JobState): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

export const JOB_STATE_LABELS: Record<JobState, string> = {
  queued: 'Waiting',
  preparing: 'Preparing scan',
  submitting: 'Creating job',
  uploading: 'Uploading',
  notifying: 'Starting processing',
  processing: 'Processing',
  downloading: 'Downloading',
  done: 'Done',
  failed: 'Failed',
  canceled: 'Canceled',
};

export const MeshChoiceSchema = z.object({
  /** Several structures in one choice are merged into one file (service-notes.md). */
  structures: z.array(z.string().min(1).max(64)).min(1, 'Choose at least one structure.').max(64),
  extension: z.enum(['.stl', '.ply', '.obj', '.drc']),
});
export type MeshChoice = z.infer<typeof MeshChoiceSchema>;

const JobOutputSchema = z.object({
  path: z.string(),
  bytes: z.number().int().nonnegative(),
  structures: z.array(z.string()),
  extension: z.string(),
  /** What the service (or the local engine) said it did for this mesh. */
  note: z.string().optional(),
});
export type JobOutput = z.infer<typeof JobOutputSchema>;

export const JobErrorSchema = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  action: z.string().optional(),
  retryable: z.boolean().optional(),
});

export const JobViewSchema = z.object({
  /** Local id (UUID), stable across restarts. */
  id: z.string(),
  /** The service's jobId once the job exists there. */
  remoteJobId: z.string().optional(),
  batchId: z.string().optional(),
  /** Its batch is paused: it starts no new step until the batch is resumed. */
  batchPaused: z.boolean().optional(),
  /** What the user calls the scan: patient name or file name, as shown in the app (never logged). */
  scanName: z.string(),
  seriesDescription: z.string(),
  /** The scan's series id in this session (scans.preview), so the result can be checked against it. */
  seriesId: z.string().optional(),
  meshes: z.array(MeshChoiceSchema),
  profileId: z.string(),
  profileName: z.string(),
  deidentify: z.boolean(),
  state: z.enum(JOB_STATES),
  progress: z.object({
    /** 0..1 of the current phase, when known. */
    fraction: z.number().min(0).max(1).optional(),
    bytesDone: z.number().nonnegative().optional(),
    bytesTotal: z.number().nonnegative().optional(),
    /** Free text from the service or engine (e.g. "extracting surface"). */
    stage: z.string().optional(),
  }),
  /**
   * Set while a step keeps failing and is being tried again (e.g. the service cannot be reached):
   * the last error, and when the next attempt is due. Cleared when a step gets through.
   */
  trouble: JobErrorSchema.extend({ retryAt: z.string().optional() }).optional(),
  error: JobErrorSchema.optional(),
  outputs: z.array(JobOutputSchema),
  outputDir: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  priority: z.number().int(),
});
export type JobView = z.infer<typeof JobViewSchema>;

export const SubmitJobsRequestSchema = z
  .object({
    seriesIds: z.array(z.string().min(1)).min(1, 'Choose at least one scan.').max(500),
    meshes: z.array(MeshChoiceSchema).min(1, 'Choose at least one structure.').max(32),
    deidentify: z.boolean(),
    /** The user accepts sending de-identified series whose pixels may show patient data (burned-in). */
    acceptBurnedIn: z.boolean().optional(),
    /** The active connection when absent. */
    profileId: z.string().optional(),
    /** The output folder from the settings when absent. */
    outputDir: z.string().optional(),
    options: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type SubmitJobsRequest = z.infer<typeof SubmitJobsRequestSchema>;

/** Output file naming: the default template and its fields (sanitized when applied). */
export const DEFAULT_NAMING_TEMPLATE = '{scan}/{series}/{structures}{ext}';
/** {scan} never holds the patient's name for a de-identified job; {patient} does, when asked for. */
export const NAMING_FIELDS = ['scan', 'series', 'structures', 'ext', 'date', 'jobId', 'patient'] as const;
