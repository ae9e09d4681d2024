import { z } from 'zod';
import { ERROR_CODES } from './errors.js';

export * from './job-states.js';
import { JOB_STATES } from './job-states.js';

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

/**
 * Whether a mesh a job saved is still what it saved: at its path, as a file of the size it had
 * (src-main/jobs/saved-output-state.ts). A job stays "done" after the user moves, deletes or
 * overwrites its meshes; what is at the path then is not the job's result.
 */
export const SAVED_OUTPUT_STATES = ['saved', 'missing', 'changed'] as const;
export type SavedOutputState = (typeof SAVED_OUTPUT_STATES)[number];

/** How the app marks a mesh that is no longer what its job saved (Jobs screen, `status`). */
export const NOT_AS_SAVED: Record<Exclude<SavedOutputState, 'saved'>, string> = {
  missing: 'no longer there',
  changed: 'changed since saved',
};

/** What happened to such a mesh, and what to do (a finished job is not run twice). */
export const NOT_AS_SAVED_ACTION: Record<Exclude<SavedOutputState, 'saved'>, string> = {
  missing:
    'It was moved, renamed or deleted. Open it where it is now by dropping it on the viewer, or submit the scan again to make it again (a finished job is not run twice).',
  changed:
    'Another program or a later save wrote over it. Submit the scan again to make the mesh again, or drop the file on the viewer to look at it as a file of your own.',
};

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
  /** Where the scan came from on this computer: the file given, or the folder holding its files. */
  source: z.string().optional(),
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
  /** Its place in the order jobs were submitted (a batch's jobs share one createdAt). */
  submissionSeq: z.number().int(),
});
export type JobView = z.infer<typeof JobViewSchema>;

export const SubmitJobsRequestSchema = z
  .object({
    seriesIds: z.array(z.string().min(1)).min(1, 'Choose at least one scan.').max(500),
    // §8.4 shows no limit; this one only keeps a job body sane (the catalogue names some 60 structures).
    meshes: z
      .array(MeshChoiceSchema)
      .min(1, 'Choose at least one structure.')
      .max(256, 'Choose at most 256 meshes for one job.'),
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
