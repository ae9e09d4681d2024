import { app, BrowserWindow } from 'electron';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCore } from '../app/core.js';
import { attachIpc } from './ipc-transport.js';
import { electronPlatform } from './electron-platform.js';
import { APP_ORIGIN, hardenApp } from './security.js';
import { registerAppScheme, serveRenderer } from './app-protocol.js';
import { rendererDir } from '../platform/app-paths.js';

const here = dirname(fileURLToPath(import.meta.url));
let mainWindow: BrowserWindow | null = null;

app.setName('scan2mesh');
hardenApp();
registerAppScheme();

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (mainWindow?.isMinimized()) mainWindow.restore();
    mainWindow?.focus();
  });
  void app.whenReady().then(() => {
    const core = createCore(electronPlatform(app.getPath('userData'), () => mainWindow));
    serveRenderer(rendererDir(), core.files);
    attachIpc(core, () => mainWindow);
    mainWindow = new BrowserWindow({
      width: 1400,
      height: 900,
      minWidth: 960,
      minHeight: 640,
      title: 'scan2mesh',
      show: false,
      webPreferences: {
        preload: join(here, 'preload.cjs'),
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        webviewTag: false,
        navigateOnDragDrop: false,
        spellcheck: false,
      },
    });
    mainWindow.once('ready-to-show', () => mainWindow?.show());
    mainWindow.on('closed', () => {
      mainWindow = null;
    });
    void mainWindow.loadURL(`${APP_ORIGIN}/index.html`);
    core.start().catch((e: unknown) => core.logger.error('resuming jobs failed', { error: String(e) }));
    app.on('before-quit', () => {
      void core.dispose();
    });
  });
  app.on('window-all-closed', () => app.quit());
}
