import { dialog, Notification, shell, type BrowserWindow } from 'electron';
import { existsSync } from 'node:fs';
import type { Platform } from '../app/platform.js';
import { createKeytarSecretStore } from '../secrets/secret-store.js';
import { AppError } from '../../src-shared/errors.js';

export function electronPlatform(dataDir: string, getWindow: () => BrowserWindow | null): Platform {
  return {
    transport: 'electron',
    dataDir,
    secrets: createKeytarSecretStore(),
    async revealInFolder(path) {
      if (!existsSync(path)) throw new AppError('not-found', `The file is no longer there: ${path}`);
      shell.showItemInFolder(path);
    },
    notify(title, body) {
      if (Notification.isSupported()) new Notification({ title, body, silent: false }).show();
    },
    setProgress(fraction) {
      getWindow()?.setProgressBar(fraction === null ? -1 : Math.max(0, Math.min(1, fraction)));
    },
    async chooseScans() {
      const win = getWindow();
      const options = {
        title: 'Add scans',
        buttonLabel: 'Add',
        properties: ['openFile', 'openDirectory', 'multiSelections'] as (
          'openFile' | 'openDirectory' | 'multiSelections'
        )[],
      };
      const r = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
      return r.canceled ? [] : r.filePaths;
    },
    async chooseFolder({ title, defaultPath }) {
      const win = getWindow();
      const options = {
        title,
        buttonLabel: 'Use this folder',
        ...(defaultPath !== undefined ? { defaultPath } : {}),
        properties: ['openDirectory', 'createDirectory'] as ('openDirectory' | 'createDirectory')[],
      };
      const r = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
      return r.canceled ? null : (r.filePaths[0] ?? null);
    },
  };
}
