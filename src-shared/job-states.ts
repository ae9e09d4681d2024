// The job states and naming fields, without zod: the renderer's first screen imports these, and
// should not have to evaluate the schemas of jobs.ts to show a job's state.

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
  // uploading again: the next input of a job with several. submitting again: the local engine was
  // restarted before the notification reached it, and creates the job anew (phases/input.ts).
  notifying: ['uploading', 'submitting', 'processing', 'failed', 'canceled', 'queued'],
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

/** Output file naming: the default template and its fields (sanitized when applied). */
export const DEFAULT_NAMING_TEMPLATE = '{scan}/{series}/{structures}{ext}';
/** {scan} never holds the patient's name for a de-identified job; {patient} does, when asked for. */
export const NAMING_FIELDS = ['scan', 'series', 'structures', 'ext', 'date', 'jobId', 'patient'] as const;
