import { ipcMain, type BrowserWindow } from 'electron';
import { CHANNEL_NAMES } from '../../src-shared/contract.js';
import { checkEvent } from '../app/dispatch.js';
import type { Core } from '../app/core.js';
import { isTrustedSender } from './security.js';

export const EVENT_CHANNEL = 'scan2mesh:event';

/** Carries the contract over Electron IPC: one ipcMain handler per channel, sender checked on every call. */
export function attachIpc(core: Core, getWindow: () => BrowserWindow | null): () => void {
  for (const channel of CHANNEL_NAMES) {
    ipcMain.handle(channel, async (event, payload: unknown) => {
      const win = getWindow();
      if (!win || event.sender !== win.webContents || !isTrustedSender(event.senderFrame, event.sender)) {
        core.logger.warn('ipc call from an untrusted frame was refused', { channel });
        return { ok: false, error: { code: 'bad-request', message: 'Refused: not sent by the app window.' } };
      }
      return core.dispatch(channel, payload);
    });
  }
  const unsubscribe = core.bus.subscribe((event, payload) => {
    const win = getWindow();
    if (win && !win.isDestroyed()) win.webContents.send(EVENT_CHANNEL, event, checkEvent(event, payload));
  });
  return () => {
    unsubscribe();
    for (const channel of CHANNEL_NAMES) ipcMain.removeHandler(channel);
  };
}
