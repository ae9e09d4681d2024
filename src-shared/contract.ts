import { z } from 'zod';
import { ConnectionProfileSchema, RemoteProfileInputSchema } from './profiles.js';
import { ERROR_CODES } from './errors.js';

/**
 * The one table of everything the renderer may ask of the main process, and of everything the main
 * process tells the renderer. Both transports (Electron IPC, web mode) carry exactly this; payloads are
 * validated on arrival and results before they leave (src-main/app/dispatch.ts).
 */

const Empty = z.object({}).strict();

export const ProfileViewSchema = ConnectionProfileSchema.extend({
  /** The renderer learns only that a secret is stored, never the secret. */
  secretStored: z.boolean(),
  active: z.boolean(),
});
export type ProfileView = z.infer<typeof ProfileViewSchema>;

export const AppInfoSchema = z.object({
  name: z.literal('scan2mesh'),
  version: z.string(),
  transport: z.enum(['electron', 'web']),
  platform: z.string(),
  dataDir: z.string(),
  logsDir: z.string(),
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
} as const satisfies Record<string, ChannelDef>;

export type Channel = keyof typeof channels;
export type RequestOf<C extends Channel> = z.input<(typeof channels)[C]['request']>;
export type ResponseOf<C extends Channel> = z.output<(typeof channels)[C]['response']>;

export const CHANNEL_NAMES = Object.keys(channels) as Channel[];

/** Events flow from the main process to the renderer only. */
export const events = {
  'profiles.changed': Empty,
} as const satisfies Record<string, z.ZodType>;

export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;
export const EVENT_NAMES = Object.keys(events) as EventName[];

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
  /** Paths on the main side for files the user dropped or picked (Electron: their real paths; web mode: staged copies). */
  pathsForFiles(files: F[]): Promise<string[]>;
}

/** Builds the grouped API object from a per-channel caller; used by the preload and the web bridge. */
export function buildApi<R>(call: (channel: Channel, req: unknown) => Promise<R>): ContractApi<'envelope'> {
  const api: Record<string, Record<string, (req: unknown) => Promise<R>>> = {};
  for (const channel of CHANNEL_NAMES) {
    const [group, method] = channel.split('.') as [string, string];
    (api[group] ??= {})[method] = (req: unknown) => call(channel, req ?? {});
  }
  return api as unknown as ContractApi<'envelope'>;
}
