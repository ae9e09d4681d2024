import { contextBridge, ipcRenderer, webUtils } from 'electron';
// Names only, never src-shared/contract.ts: that would bundle zod and every schema into the preload.
// The main process validates every payload (ipc-transport.ts -> core.dispatch).
import {
  buildApi,
  eventListeners,
  IPC_EVENT_CHANNEL,
  IPC_GRANT_DROPPED_CHANNEL,
} from '../../src-shared/channels.js';
import type { Envelope, RendererBridge, ScanGrant } from '../../src-shared/contract.js';

const events = eventListeners();
ipcRenderer.on(IPC_EVENT_CHANNEL, (_event, name: string, payload: unknown) => events.emit(name, payload));

/** Only the contract's channels are exposed, each by name: never ipcRenderer itself, never a generic invoke. */
const bridge: RendererBridge<File> = {
  transport: 'electron',
  api: buildApi((channel, req) => ipcRenderer.invoke(channel, req)),
  on: events.on,
  // The page hands File objects, never paths: only Electron knows where a dropped or picked file lives,
  // and the main process turns those paths into grants that scans.intake accepts.
  async grantsForFiles(files) {
    const paths = files.map((f) => webUtils.getPathForFile(f)).filter((p) => p !== '');
    if (paths.length === 0) return [];
    const r = (await ipcRenderer.invoke(IPC_GRANT_DROPPED_CHANNEL, paths)) as Envelope<ScanGrant[]>;
    if (!r.ok) throw new Error(r.error.message);
    return r.value;
  },
};

contextBridge.exposeInMainWorld('scan2mesh', bridge);
