import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { buildApi, EVENT_NAMES, type EventName, type RendererBridge } from '../../src-shared/contract.js';

// Mirrors ipc-transport.ts; a literal here keeps the sandboxed preload free of main-process code.
const EVENT_CHANNEL = 'scan2mesh:event';

type Listener = (payload: unknown) => void;
const listeners = new Map<EventName, Set<Listener>>();

ipcRenderer.on(EVENT_CHANNEL, (_event, name: EventName, payload: unknown) => {
  for (const l of listeners.get(name) ?? []) l(payload);
});

/** Only the contract's channels are exposed, each by name: never ipcRenderer itself, never a generic invoke. */
const bridge: RendererBridge<File> = {
  transport: 'electron',
  api: buildApi((channel, req) => ipcRenderer.invoke(channel, req)),
  on(event, listener) {
    if (!EVENT_NAMES.includes(event)) throw new Error(`Unknown event ${String(event)}`);
    const set = listeners.get(event) ?? new Set<Listener>();
    listeners.set(event, set);
    set.add(listener as Listener);
    return () => set.delete(listener as Listener);
  },
  async pathsForFiles(files) {
    return files.map((f) => webUtils.getPathForFile(f)).filter((p) => p !== '');
  },
};

contextBridge.exposeInMainWorld('scan2mesh', bridge);
