import { buildApi, EVENT_NAMES, type EventName, type RendererBridge } from '../../src-shared/contract';
import type { DroppedItem } from './dropped-item';

/**
 * The bridge in web mode: the same contract over fetch to the loopback server that served this page.
 * The session cookie set when the page was first opened authenticates every call.
 */
export function createWebBridge(): RendererBridge<DroppedItem> {
  type Listener = (payload: unknown) => void;
  const listeners = new Map<EventName, Set<Listener>>();
  let source: EventSource | null = null;

  const connect = (): void => {
    if (source) return;
    source = new EventSource('/api/events');
    source.onmessage = (m: MessageEvent<string>) => {
      const { event, payload } = JSON.parse(m.data) as { event: EventName; payload: unknown };
      for (const l of listeners.get(event) ?? []) l(payload);
    };
  };

  return {
    transport: 'web',
    api: buildApi(async (channel, req) => {
      let res: Response;
      try {
        res = await fetch(`/api/invoke/${channel}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(req),
          credentials: 'same-origin',
        });
      } catch {
        return {
          ok: false as const,
          error: {
            code: 'network' as const,
            message: 'The scan2mesh app is not answering.',
            action: 'Check that `scan2mesh web` is still running, then reload this page.',
          },
        };
      }
      if (res.status === 401)
        return {
          ok: false as const,
          error: {
            code: 'auth-failed' as const,
            message: 'This browser tab is no longer connected to scan2mesh.',
            action: 'Open the address that `scan2mesh web` printed again.',
          },
        };
      return res.json();
    }),
    on(event, listener) {
      if (!EVENT_NAMES.includes(event)) throw new Error(`Unknown event ${String(event)}`);
      connect();
      const set = listeners.get(event) ?? new Set<Listener>();
      listeners.set(event, set);
      set.add(listener as Listener);
      return () => set.delete(listener as Listener);
    },
    async pathsForFiles(items) {
      // One staging folder per drop, so a dropped folder arrives as a folder and several drops never mix.
      const drop = crypto.randomUUID();
      const roots: string[] = [];
      for (const item of items) {
        const rel = item.relativePath || item.file.name;
        const res = await fetch(`/api/stage?drop=${drop}&path=${encodeURIComponent(rel)}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/octet-stream' },
          body: item.file,
          credentials: 'same-origin',
        });
        if (!res.ok) throw new Error(`Could not copy ${rel} into the app: ${await res.text()}`);
        const { root } = (await res.json()) as { path: string; root: string };
        if (!roots.includes(root)) roots.push(root);
      }
      return roots;
    },
  };
}
