import type { Channel, ContractApi, Envelope, EventName, EventPayload } from './contract.js';
import { CHANNEL_NAMES, EVENT_NAMES } from './channels.generated.js';

/**
 * The contract by name only: what a transport needs to offer the channels and carry the events, without
 * the schemas. Everything here is types or plain strings, so the Electron preload that imports it stays a
 * few kilobytes; the main process validates every payload against src-shared/contract.ts.
 */

export { CHANNEL_NAMES, EVENT_NAMES };

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
// Does not compile when the generated names and the contract disagree: run scripts/generate-channels.mjs.
export type _ChannelNamesInSync = Assert<Same<(typeof CHANNEL_NAMES)[number], Channel>>;
export type _EventNamesInSync = Assert<Same<(typeof EVENT_NAMES)[number], EventName>>;

/** The Electron IPC channel on which the main process sends the contract's events to the window. */
export const IPC_EVENT_CHANNEL = 'scan2mesh:event';
/**
 * Not a contract channel: only the preload calls it, with the paths Electron itself gave for File objects
 * the user dropped or picked (webUtils.getPathForFile). The page cannot reach ipcRenderer (context
 * isolation), and a File the page made up has no path, so whatever arrives here was chosen by a person.
 */
export const IPC_GRANT_DROPPED_CHANNEL = 'scan2mesh:grant-dropped';

type ChannelCall<R> = (channel: Channel, req: unknown) => Promise<R>;
type Groups<R> = Record<string, Record<string, (req: unknown) => Promise<R>>>;

/** 'jobs.submit' -> ['jobs', 'submit']: the group on the API object and the method in it. */
function groupAndMethod(channel: Channel): [string, string] {
  return channel.split('.') as [string, string];
}

/**
 * The grouped API object (`api.jobs.submit(req)`), one function per channel, each handing its channel
 * to `call`. 'envelope': what a bridge offers (errors as data); 'promise': what the UI calls (results).
 */
export function buildApi<K extends 'envelope' | 'promise' = 'envelope'>(
  call: ChannelCall<unknown>,
): ContractApi<K> {
  const api: Groups<unknown> = {};
  for (const channel of CHANNEL_NAMES) {
    const [group, method] = groupAndMethod(channel);
    (api[group] ??= {})[method] = (req: unknown) => call(channel, req ?? {});
  }
  return api as unknown as ContractApi<K>;
}

/** The reverse of buildApi: calls a channel of a grouped API object by its name. */
export function callerOf(api: ContractApi<'envelope'>): ChannelCall<Envelope<unknown>> {
  const groups = api as unknown as Groups<Envelope<unknown>>;
  return (channel, req) => {
    const [group, method] = groupAndMethod(channel);
    const call = groups[group]?.[method];
    if (!call) return Promise.reject(new Error(`The app does not offer ${channel}; restart it.`));
    return call(req);
  };
}

type Listener = (payload: unknown) => void;

/** The renderer-side listeners of the contract's events, shared by the Electron preload and web mode. */
export function eventListeners(): {
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
  /** Passes an event that arrived from the main process to its listeners; unknown names reach nobody. */
  emit(event: string, payload: unknown): void;
} {
  const listeners = new Map<string, Set<Listener>>();
  return {
    on(event, listener) {
      if (!(EVENT_NAMES as readonly string[]).includes(event))
        throw new Error(`Unknown event ${String(event)}`);
      const set = listeners.get(event) ?? new Set<Listener>();
      listeners.set(event, set);
      set.add(listener as Listener);
      return () => set.delete(listener as Listener);
    },
    emit(event, payload) {
      for (const l of listeners.get(event) ?? []) l(payload);
    },
  };
}
