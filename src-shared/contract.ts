import { z } from 'zod';
import { ConnectionProfileSchema, RemoteProfileInputSchema } from './profiles.js';
import { ERROR_CODES } from './errors.js';
import {
  IntakeResultSchema,
  SeriesSummarySchema,
  SlicePreviewRequestSchema,
  SlicePreviewSchema,
} from './scans.js';
import { JobViewSchema, SAVED_OUTPUT_STATES, SubmitJobsRequestSchema } from './jobs.js';
import { AppSettingsSchema } from './settings.js';

/**
 * The one table of everything the renderer may ask of the main process, and of everything the main
 * process tells the renderer. Both transports (Electron IPC, web mode) carry exactly this; payloads are
 * validated on arrival and results before they leave (src-main/app/dispatch.ts).
 */

const Empty = z.object({}).strict();
const ByBatch = z.object({ batchId: z.string().min(1).max(64).optional() }).strict();
const ById = z.object({ id: z.string().min(1).max(128) }).strict();
/**
 * A job named by its full local id, as jobs.list gives it. People may type a prefix or the service's id
 * at the command line, which resolves it itself; over the contract only the exact id names a job.
 */
const JobId = z.uuid('Not a job id: name the job by the id jobs.list gave.');
const ByJobId = z.object({ id: JobId }).strict();

/** An unguessable id the transport issued for a file or folder the user chose (dialog, drop, web stage). */
const GrantIdSchema = z.string().regex(/^[\w-]{16,64}$/, 'not a grant id');

/** What a grant stands for, as the renderer may know it: its id and the name the user saw. */
const ScanGrantSchema = z.object({ id: GrantIdSchema, name: z.string() });
export type ScanGrant = z.infer<typeof ScanGrantSchema>;

const NOT_A_PATH =
  'The app reads only files you chose: scans are named by the grant ids that the file dialog, a drop or the web stage gave, never by a path.';
const OUTPUT_DIR_BY_FLOW =
  'The output folder is changed only with "Change folder…" (the folder picker, or a confirmed path in web mode), not by a settings update.';

function outputDirRefused(issue: { code?: string; keys?: unknown }): string | undefined {
  return issue.code === 'unrecognized_keys' && Array.isArray(issue.keys) && issue.keys.includes('outputDir')
    ? OUTPUT_DIR_BY_FLOW
    : undefined;
}

/** The output folder a typed path would become, once checked; the confirmation is needed to apply it. */
const OutputDirCheckSchema = z.object({
  /** The full, normalised path that will be used. */
  path: z.string(),
  /** False when the folder does not exist yet and will be created. */
  exists: z.boolean(),
  /** One-time token for settings.setOutputDir with this very path; expires after a few minutes. */
  confirmation: z.string(),
});
export type OutputDirCheck = z.infer<typeof OutputDirCheckSchema>;

const ConnectionTestSchema = z.object({
  ok: z.boolean(),
  /** What happened, in words: the service's own message on success, the reason and the fix on failure. */
  message: z.string(),
  action: z.string().optional(),
  code: z.enum(ERROR_CODES).optional(),
});
export type ConnectionTest = z.infer<typeof ConnectionTestSchema>;

const CapabilitiesSchema = z.object({
  /** True for a remote service: it is the authority on structure names, anything may be asked. */
  anyStructure: z.boolean(),
  /** Names this connection is known to refuse, each with the reason in words. */
  refused: z.array(z.object({ name: z.string(), reason: z.string() })),
  /** What the connection does for the names it accepts (e.g. "mandible: bone surface, not separated from the skull"). */
  notes: z.array(z.object({ name: z.string(), note: z.string() })),
  /**
   * Names beyond the catalogue this connection is known to make (e.g. airway on the local engine), with
   * what it makes of them. When anyStructure is false, a typed name not in the catalogue or here is refused.
   */
  extra: z.array(z.object({ name: z.string(), note: z.string() })).optional(),
});
export type Capabilities = z.infer<typeof CapabilitiesSchema>;

const OutputFileSchema = z.object({
  /** Same-origin address the viewer fetches the mesh from; valid for this session only. */
  url: z.string(),
  name: z.string(),
  format: z.enum(['stl', 'ply', 'obj', 'drc']),
  structures: z.array(z.string()),
  bytes: z.number().int().nonnegative(),
});
export type OutputFile = z.infer<typeof OutputFileSchema>;

const JobList = z.object({ jobs: z.array(JobViewSchema), paused: z.boolean() });

const ProfileViewSchema = ConnectionProfileSchema.extend({
  /** The renderer learns only that a secret is stored, never the secret. */
  secretStored: z.boolean(),
  active: z.boolean(),
});
export type ProfileView = z.infer<typeof ProfileViewSchema>;

const AppInfoSchema = z.object({
  name: z.literal('scan2mesh'),
  version: z.string(),
  transport: z.enum(['electron', 'web']),
  platform: z.string(),
  dataDir: z.string(),
  logsDir: z.string(),
  /** True where a native file dialog exists (Electron); web mode uses the browser's file input. */
  nativeDialogs: z.boolean(),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

interface ChannelDef {
  request: z.ZodType;
  response: z.ZodType;
}

export const channels = {
  'app.info': { request: Empty, response: AppInfoSchema },

  'profiles.list': { request: Empty, response: z.object({ profiles: z.array(ProfileViewSchema) }) },
  'profiles.save': {
    request: z
      .object({
        profile: RemoteProfileInputSchema,
        /** Written to the keychain; omitted to keep the stored one. */
        clientSecret: z.string().min(1).max(4096).optional(),
      })
      .strict(),
    response: ProfileViewSchema,
  },
  'profiles.delete': { request: z.object({ id: z.string().min(1) }).strict(), response: Empty },
  'profiles.setActive': { request: z.object({ id: z.string().min(1) }).strict(), response: Empty },
  'profiles.test': { request: ById, response: ConnectionTestSchema },
  'profiles.capabilities': { request: ById, response: CapabilitiesSchema },

  'scans.intake': {
    request: z.strictObject(
      { grants: z.array(GrantIdSchema).min(1).max(10_000) },
      { error: (i) => (i.code === 'unrecognized_keys' ? NOT_A_PATH : undefined) },
    ),
    response: IntakeResultSchema,
  },
  'scans.preview': { request: SlicePreviewRequestSchema.strict(), response: SlicePreviewSchema },
  /** The series taken in this session and not forgotten, in the order they came: a reloaded page lists them again. */
  'scans.list': { request: Empty, response: z.object({ series: z.array(SeriesSummarySchema) }) },
  /** The user removed these series from the list: the main process lets go of them and their unpacked copies. */
  'scans.forget': {
    request: z.object({ seriesIds: z.array(z.string().min(1).max(200)).min(1).max(10_000) }).strict(),
    response: Empty,
  },
  /** Electron's native open dialog, answered with grants; refused in web mode, where the page has its own file input. */
  'scans.choose': { request: Empty, response: z.object({ grants: z.array(ScanGrantSchema) }) },

  // The output folder is always the one from the settings: the renderer cannot name another.
  'jobs.submit': {
    request: z.strictObject(SubmitJobsRequestSchema.omit({ outputDir: true }).shape, {
      error: outputDirRefused,
    }),
    response: z.object({ jobs: z.array(JobViewSchema) }),
  },
  'jobs.list': { request: Empty, response: JobList },
  'jobs.cancel': { request: ByJobId, response: Empty },
  /** resubmit: create again a job whose creation may have reached the service ('job-may-exist'). */
  'jobs.retry': {
    request: z.object({ id: JobId, resubmit: z.boolean().optional() }).strict(),
    response: Empty,
  },
  'jobs.remove': { request: ByJobId, response: Empty },
  'jobs.prioritize': { request: ByJobId, response: Empty },
  // With a batchId: that batch only; without: the whole queue.
  'jobs.pause': { request: ByBatch, response: Empty },
  'jobs.resume': { request: ByBatch, response: Empty },
  'jobs.reveal': {
    request: z.object({ id: JobId, index: z.number().int().nonnegative() }).strict(),
    response: Empty,
  },
  'jobs.openOutput': {
    request: z.object({ id: JobId, index: z.number().int().nonnegative() }).strict(),
    response: OutputFileSchema,
  },
  /**
   * Whether each saved mesh of these ended jobs is still where and as its job saved it, by job id in
   * the order of its outputs; ids no longer known (or of jobs that have not ended) are left out.
   */
  'jobs.outputsOnDisk': {
    request: z.object({ ids: z.array(JobId).max(20_000) }).strict(),
    response: z.object({ states: z.record(z.string(), z.array(z.enum(SAVED_OUTPUT_STATES))) }),
  },

  'settings.get': { request: Empty, response: AppSettingsSchema },
  'settings.update': {
    request: z.strictObject(AppSettingsSchema.omit({ outputDir: true }).partial().shape, {
      error: outputDirRefused,
    }),
    response: AppSettingsSchema,
  },
  /** Electron: the system folder picker; refused in web mode. `canceled` when the user closed it. */
  'settings.chooseOutputDir': {
    request: Empty,
    response: z.object({ canceled: z.boolean(), settings: AppSettingsSchema }),
  },
  /** Web mode, step 1: checks a typed folder and returns what will be used, for the user to confirm. */
  'settings.checkOutputDir': {
    request: z.object({ path: z.string().min(1).max(4096) }).strict(),
    response: OutputDirCheckSchema,
  },
  /** Web mode, step 2: applies a checked folder, with the confirmation that step 1 gave for it. */
  'settings.setOutputDir': {
    request: z
      .object({ path: z.string().min(1).max(4096), confirmation: z.string().min(1).max(128) })
      .strict(),
    response: AppSettingsSchema,
  },
} as const satisfies Record<string, ChannelDef>;

export type Channel = keyof typeof channels;
export type RequestOf<C extends Channel> = z.input<(typeof channels)[C]['request']>;
export type ResponseOf<C extends Channel> = z.output<(typeof channels)[C]['response']>;

/** Events flow from the main process to the renderer only. */
export const events = {
  'profiles.changed': Empty,
  /** The jobs whose state or progress changed, and whether the queue is paused. */
  'jobs.changed': z.object({ jobs: z.array(JobViewSchema), paused: z.boolean() }),
} as const satisfies Record<string, z.ZodType>;

export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;

export const ErrorShapeSchema = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  action: z.string().optional(),
  retryable: z.boolean().optional(),
});

/** What every call returns over a transport: errors travel as data because IPC and contextBridge strip Error objects. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: z.infer<typeof ErrorShapeSchema> };

type GroupOf<C> = C extends `${infer G}.${string}` ? G : never;
type MethodOf<C, G extends string> = C extends `${G}.${infer M}` ? M : never;

/** The API the renderer calls: `api.profiles.list({})`, one function per channel, grouped by prefix. */
export type ContractApi<R = 'promise'> = {
  [G in GroupOf<Channel>]: {
    [M in MethodOf<Channel, G>]: `${G}.${M}` extends infer C extends Channel
      ? (
          req: RequestOf<C>,
        ) => R extends 'envelope' ? Promise<Envelope<ResponseOf<C>>> : Promise<ResponseOf<C>>
      : never;
  };
};

/**
 * What the transport puts on `window.scan2mesh`: the contract's channels (returning envelopes), event
 * subscription, and the few things that depend on where the renderer runs.
 */
export interface RendererBridge<F = unknown> {
  transport: 'electron' | 'web';
  api: ContractApi<'envelope'>;
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
  /**
   * Grants for files the user dropped or picked (Electron: the preload reads their real paths and the main
   * process grants them; web mode: the files are uploaded to the stage, which grants the copies).
   */
  grantsForFiles(files: F[]): Promise<ScanGrant[]>;
}
