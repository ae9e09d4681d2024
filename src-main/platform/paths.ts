import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The user's data folder, shared by the app, web mode and the command line. It matches what Electron's
 * app.getPath('userData') gives for an app named scan2mesh, so all three see the same settings and jobs.
 * SCAN2MESH_DATA_DIR overrides it (tests, portable installs).
 */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SCAN2MESH_DATA_DIR) return env.SCAN2MESH_DATA_DIR;
  const home = homedir();
  if (process.platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'scan2mesh');
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support', 'scan2mesh');
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'scan2mesh');
}

/**
 * The folder of the app's and web mode's local engine (its jobs, and their copies of scans) in a data
 * folder. The command line's engine keeps its jobs in a temporary folder of its own instead.
 */
export function embeddedEngineDir(dataDir: string): string {
  return join(dataDir, 'engine');
}

export function logsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataDir(env), 'logs');
}
