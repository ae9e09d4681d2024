import { dataDir } from '../platform/paths.js';

/**
 * Windows groups the app's notifications and taskbar button under this id. It is electron-builder's
 * appId (electron-builder.yml), which the installer gives the Start-menu shortcut: without the same id
 * here, notifications from the installed app are dropped.
 */
export const APP_USER_MODEL_ID = 'app.scan2mesh.desktop';

/**
 * The switch with which the installed `scan2mesh` launchers (assets/cli) start the app's binary as the
 * command line: the RunAsNode fuse is off, so the binary cannot simply run the CLI script as Node.
 */
export const CLI_SWITCH = '--scan2mesh-cli';

/**
 * The command line to run when the binary was started with CLI_SWITCH, shaped as Node's process.argv
 * (runtime, script, arguments) for runCli; null for a normal start with a window. The launchers put `--`
 * after the switch so that Chromium leaves the user's arguments alone.
 */
export function cliArgvFrom(argv: readonly string[]): string[] | null {
  const at = argv.indexOf(CLI_SWITCH);
  if (at < 0) return null;
  const rest = argv.slice(at + 1);
  if (rest[0] === '--') rest.shift();
  return [argv[0] ?? 'scan2mesh', 'scan2mesh', ...rest];
}

/** On macOS an app stays running with no window (its menu bar and Dock icon remain); elsewhere it quits. */
export function quitsWhenAllWindowsClosed(platform: NodeJS.Platform): boolean {
  return platform !== 'darwin';
}

/** macOS: clicking the Dock icon of a running app with no window opens one again. */
export function reopensWindowOnActivate(openWindows: number): boolean {
  return openWindows === 0;
}

/**
 * The data folder of the window: SCAN2MESH_DATA_DIR when set, exactly as the command line and web mode
 * read it (platform/paths.ts), so all three share one job queue and settings; otherwise Electron's
 * userData folder, which paths.ts mirrors for the others.
 */
export function desktopDataDir(env: NodeJS.ProcessEnv, electronUserData: string): string {
  return env.SCAN2MESH_DATA_DIR ? dataDir(env) : electronUserData;
}
