import { ipcMain, type BrowserWindow } from 'electron';
import { isAbsolute } from 'node:path';
import { existsSync } from 'node:fs';
import { CHANNEL_NAMES } from '../../src-shared/channels.js';
import { checkEvent } from '../app/dispatch.js';
import { droppedPathRefusal } from '../app/drop-places.js';
import type { Core } from '../app/core.js';
import { isTrustedSender } from './security.js';

// One place for the IPC names, shared with the preload (src-shared/channels.ts says what each carries).
import {
  IPC_EVENT_CHANNEL as EVENT_CHANNEL,
  IPC_GRANT_DROPPED_CHANNEL as GRANT_DROPPED_CHANNEL,
} from '../../src-shared/channels.js';

/** Carries the contract over Electron IPC: one ipcMain handler per channel, sender checked on every call. */
export function attachIpc(
  core: Pick<Core, 'dispatch' | 'bus' | 'logger' | 'scanGrants'>,
  getWindow: () => BrowserWindow | null,
): () => void {
  const trusted = (event: Electron.IpcMainInvokeEvent, channel: string): boolean => {
    const win = getWindow();
    if (!win || event.sender !== win.webContents || !isTrustedSender(event.senderFrame, event.sender)) {
      core.logger.warn('ipc call from an untrusted frame was refused', { channel });
      return false;
    }
    return true;
  };
  const refused = {
    ok: false,
    error: { code: 'bad-request', message: 'Refused: not sent by the app window.' },
  };
  for (const channel of CHANNEL_NAMES) {
    ipcMain.handle(channel, async (event, payload: unknown) =>
      trusted(event, channel) ? core.dispatch(channel, payload) : refused,
    );
  }
  ipcMain.handle(GRANT_DROPPED_CHANNEL, async (event, paths: unknown) => {
    if (!trusted(event, GRANT_DROPPED_CHANNEL)) return refused;
    if (!Array.isArray(paths) || paths.length > 10_000)
      return { ok: false, error: { code: 'bad-request', message: 'Expected the paths of dropped files.' } };
    const usable = paths.filter((p): p is string => typeof p === 'string' && isAbsolute(p) && existsSync(p));
    // Checked here, where the paths arrive: a page taken over could send any (drop-places.ts).
    for (const p of usable) {
      const refusal = droppedPathRefusal(p);
      if (refusal) {
        core.logger.warn('a dropped path was not granted', { channel: GRANT_DROPPED_CHANNEL });
        return { ok: false, error: { code: 'bad-request', message: refusal } };
      }
    }
    return { ok: true, value: usable.map((p) => core.scanGrants.grant(p)) };
  });
  const unsubscribe = core.bus.subscribe((event, payload) => {
    const win = getWindow();
    if (win && !win.isDestroyed()) win.webContents.send(EVENT_CHANNEL, event, checkEvent(event, payload));
  });
  return () => {
    unsubscribe();
    for (const channel of CHANNEL_NAMES) ipcMain.removeHandler(channel);
    ipcMain.removeHandler(GRANT_DROPPED_CHANNEL);
  };
}
