import { app, BrowserWindow, powerSaveBlocker } from 'electron';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCore, type Core } from '../app/core.js';
import type { EventPayload } from '../../src-shared/contract.js';
import { runCli } from '../cli/run-cli.js';
import { attachIpc } from './ipc-transport.js';
import { electronPlatform } from './electron-platform.js';
import { APP_ORIGIN, hardenApp } from './security.js';
import { appFileUrl, registerAppScheme, serveRenderer } from './app-protocol.js';
import { rendererDir } from '../platform/app-paths.js';
import {
  APP_USER_MODEL_ID,
  cliArgvFrom,
  desktopDataDir,
  quitsWhenAllWindowsClosed,
  reopensWindowOnActivate,
} from './desktop-conventions.js';
import { PowerSaveGuard } from './power-save.js';

const here = dirname(fileURLToPath(import.meta.url));
const cliArgv = cliArgvFrom(process.argv);

if (cliArgv) {
  runCommandLine(cliArgv);
} else {
  runDesktopApp();
}

/** The installed `scan2mesh` command (assets/cli): the command line in this binary, no window, no Dock icon. */
function runCommandLine(argv: string[]): void {
  app.dock?.hide();
  runCli(argv).then(
    (code) => app.exit(code),
    () => app.exit(1),
  );
}

function runDesktopApp(): void {
  app.setName('scan2mesh');
  app.setAppUserModelId(APP_USER_MODEL_ID);
  // Before anything touches the data folder (the single-instance lock lives there too): one folder per
  // SCAN2MESH_DATA_DIR, shared with the command line and web mode.
  const dataDir = desktopDataDir(process.env, app.getPath('userData'));
  if (dataDir !== app.getPath('userData')) app.setPath('userData', dataDir);
  hardenApp();
  registerAppScheme();

  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  let mainWindow: BrowserWindow | null = null;
  const getWindow = (): BrowserWindow | null => mainWindow;
  app.on('second-instance', () => {
    if (mainWindow?.isMinimized()) mainWindow.restore();
    mainWindow?.focus();
  });
  // The core outlives the window on macOS (jobs go on with the window closed); quitting ends it.
  app.on('window-all-closed', () => {
    if (quitsWhenAllWindowsClosed(process.platform)) app.quit();
  });
  void app.whenReady().then(() => {
    const core = createCore(electronPlatform(dataDir, getWindow), { fileUrl: appFileUrl });
    serveRenderer(rendererDir(), core.files);
    attachIpc(core, getWindow);
    keepAwakeWhileJobsRun(core);
    mainWindow = openWindow();
    app.on('activate', () => {
      if (reopensWindowOnActivate(BrowserWindow.getAllWindows().length)) mainWindow = openWindow();
    });
    core.start().catch((e: unknown) => core.logger.error('resuming jobs failed', { error: String(e) }));
    app.on('before-quit', () => {
      void core.dispose();
    });
  });

  function openWindow(): BrowserWindow {
    const win = new BrowserWindow({
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
        // The installed app has no developer tools: they would let anyone at the window run script
        // with the renderer's reach (its IPC channels) and read what it shows.
        devTools: !app.isPackaged,
        // A middle click would otherwise try to open a link in a new window (denied anyway by hardenApp).
        disableBlinkFeatures: 'Auxclick',
      },
    });
    win.once('ready-to-show', () => win.show());
    win.on('closed', () => {
      if (mainWindow === win) mainWindow = null;
    });
    void win.loadURL(`${APP_ORIGIN}/index.html`);
    return win;
  }
}

function keepAwakeWhileJobsRun(core: Pick<Core, 'bus'>): void {
  const guard = new PowerSaveGuard(powerSaveBlocker);
  core.bus.subscribe((event, payload) => {
    if (event === 'jobs.changed') guard.onJobsChanged(payload as EventPayload<'jobs.changed'>);
  });
  app.on('will-quit', () => guard.dispose());
}
