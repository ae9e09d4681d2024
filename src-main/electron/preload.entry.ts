import { contextBridge, ipcRenderer, webUtils } from 'electron';
import {
  buildApi,
  EVENT_NAMES,
  type Envelope,
  type EventName,
  type RendererBridge,
  type ScanGrant,
} from '../../src-shared/contract.js';

// Mirror ipc-transport.ts; literals here keep the sandboxed preload free of main-process code.
const EVENT_CHANNEL = 'scan2mesh:event';
const GRANT_DROPPED_CHANNEL = 'scan2mesh:grant-dropped';

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
  // The page hands File objects, never paths: only Electron knows where a dropped or picked file lives,
  // and the main process turns those paths into grants that scans.intake accepts.
  async grantsForFiles(files) {
    const paths = files.map((f) => webUtils.getPathForFile(f)).filter((p) => p !== '');
    if (paths.length === 0) return [];
    const r = (await ipcRenderer.invoke(GRANT_DROPPED_CHANNEL, paths)) as Envelope<ScanGrant[]>;
    if (!r.ok) throw new Error(r.error.message);
    return r.value;
  },
};

contextBridge.exposeInMainWorld('scan2mesh', bridge);
