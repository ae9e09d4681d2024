import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, posix, win32 } from 'node:path';
import { POSIX_SYSTEM_FOLDERS, WINDOWS_SYSTEM_FOLDERS, within } from '../platform/system-folders.js';

/**
 * Where a dropped path may not come from. The Electron preload learns a drop's paths from the File
 * objects of a real drop (the page itself cannot name a path), but the main process cannot see the
 * drop: a renderer process taken over could send any path. So a grant for a drop is also refused
 * where no scan is kept and where a taken-over page would look first: the system's own folders, the
 * hidden folders of the home folder (keys, keyrings, settings), and the whole disk or home folder at
 * once. A user who meets this has dropped the wrong folder, and is told which to drop instead.
 */

/** Beyond the system's own folders: where services keep their data, logs and spools. */
const POSIX_SERVICE_DATA = [
  '/var/lib',
  '/var/log',
  '/var/run',
  '/var/spool',
  '/private/etc',
  '/private/var/db',
];
const POSIX_NEVER = [...POSIX_SYSTEM_FOLDERS, ...POSIX_SERVICE_DATA];
/** Under /run only removable drives hold the user's files. */
const RUN = '/run';
const RUN_MEDIA = '/run/media';

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export interface DropPlaceEnv {
  home?: string;
  platform?: NodeJS.Platform;
  /** Resolves links (the real path is what would be read); the system's realpath by default. */
  real?: (path: string) => string;
}

/** Why a dropped path is not granted, in words for the user; undefined when it may be. */
export function droppedPathRefusal(dropped: string, env: DropPlaceEnv = {}): string | undefined {
  const platform = env.platform ?? process.platform;
  const windows = platform === 'win32';
  const p = windows ? win32 : posix;
  const home = (env.real ?? realOrSelf)(env.home ?? homedir());
  const path = (env.real ?? realOrSelf)(dropped);
  const sep = p.sep;
  const name = basename(dropped) || dropped;
  const isRoot = p.parse(path).root === path;
  if (isRoot || path === home)
    return `${name} is ${isRoot ? 'a whole drive' : 'your whole home folder'}: everything in it would be read for a scan, so it is not read. Drop the folder of the scan itself.`;
  const system = windows
    ? WINDOWS_SYSTEM_FOLDERS.some((s) =>
        within(`\\${win32.relative(p.parse(path).root, path)}`.toLowerCase(), s, '\\'),
      )
    : (within(path, RUN, '/') && !within(path, RUN_MEDIA, '/')) ||
      POSIX_NEVER.some((s) => within(path, s, '/') && !within(path, home, '/'));
  if (system)
    return `${name} lies in a folder of the system (${path}), where no scan is kept: it is not read. Copy the scan into a folder of yours and drop it from there.`;
  if (within(path, home, sep)) {
    const inHome = p.relative(home, path).split(sep);
    const hidden = inHome.find(
      (s) => s.startsWith('.') || (platform === 'darwin' && s === 'Library') || (windows && s === 'AppData'),
    );
    if (hidden)
      return `${name} is in ${hidden}, a hidden folder of your home folder where programs keep their settings and keys: it is not read. Copy the scan into a folder of yours and drop it from there.`;
  }
  return undefined;
}
