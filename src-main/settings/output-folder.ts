import { accessSync, constants, mkdirSync, realpathSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, win32 } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import { expandHome } from '../platform/home-path.js';
import { POSIX_SYSTEM_FOLDERS, WINDOWS_SYSTEM_FOLDERS, within } from '../platform/system-folders.js';

/**
 * Checks a folder the user wants finished meshes written to. A folder typed in web mode is the one
 * place where the renderer names a path that the app will write to, so it must be a place a person
 * keeps files: absolute, a folder (or creatable as one), writable, inside the home folder or a place
 * meant for user files (temporary folders, mounted drives), and never a system folder, even through
 * a symbolic link.
 */

interface OutputFolderCheck {
  /** The full path that will be used, symbolic links of existing parents resolved. */
  path: string;
  exists: boolean;
}

interface OutputFolderEnv {
  home?: string;
  platform?: NodeJS.Platform;
  /**
   * Chosen in the system's folder picker by the person at the computer: any writable folder that is
   * not a system folder (a network share, say) is theirs to pick. A typed path must also be a usual place.
   */
  picked?: boolean;
}

/**
 * Where meshes are never written: the system's folders, and wherever else programs and services
 * keep their own files (a mesh belongs in the home folder, a temporary folder or a mounted drive).
 */
const POSIX_SYSTEM = [
  ...POSIX_SYSTEM_FOLDERS,
  '/opt',
  '/run',
  '/snap',
  '/srv',
  '/var',
  '/Applications',
  '/private',
];
/** Places for user files outside the home folder: temporary folders and mounted drives. */
const POSIX_USER_PLACES = ['/tmp', '/var/tmp', '/mnt', '/media', '/run/media', '/Volumes', '/private/tmp'];

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function refuse(message: string, action: string): never {
  throw new AppError('bad-request', message, { action });
}

const CHOOSE_ANOTHER =
  'Choose a folder inside your home folder (for example ~/Documents/scan2mesh) or on a mounted drive.';

/** The nearest part of the path that exists, and the segments below it that do not (yet). */
function splitExisting(path: string): { existing: string; rest: string[] } {
  let existing = path;
  const rest: string[] = [];
  for (;;) {
    try {
      statSync(existing);
      return { existing, rest };
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return { existing, rest };
      rest.unshift(existing.slice(parent.length).replace(/^[\\/]+/, ''));
      existing = parent;
    }
  }
}

function isWindowsSystemFolder(path: string): boolean {
  const root = win32.parse(path).root;
  if (path === root) return true;
  const rest = ('\\' + win32.relative(root, path)).toLowerCase();
  return WINDOWS_SYSTEM_FOLDERS.some((s) => within(rest, s, '\\'));
}

/** Why a folder is refused, or null when the user may keep meshes there. */
function problemOf(path: string, platform: NodeJS.Platform, home: string): 'system' | 'outside' | null {
  if (platform === 'win32') return isWindowsSystemFolder(path) ? 'system' : null;
  // The home folder counts even under a system root (root's home is /root); a home of / does not.
  const places = [...(home !== '/' ? [home] : []), realOrSelf(tmpdir()), ...POSIX_USER_PLACES];
  if (places.some((p) => within(path, p, '/'))) return null;
  if (path === '/' || POSIX_SYSTEM.some((s) => within(path, s, '/'))) return 'system';
  return 'outside';
}

export function checkOutputFolder(typed: string, env: OutputFolderEnv = {}): OutputFolderCheck {
  const platform = env.platform ?? process.platform;
  const home = realOrSelf(env.home ?? homedir());
  const text = typed.trim();
  if (text.includes('\0')) refuse('The folder name contains a character no folder can have.', CHOOSE_ANOTHER);
  const expanded = expandHome(text, home);
  if (!isAbsolute(expanded))
    refuse(
      `"${typed}" is not a full path.`,
      'Write the whole path from the top, for example /home/you/Documents/scan2mesh or ~/Documents/scan2mesh.',
    );
  // Links are followed before anything is judged, so ~/link-to-etc is treated as /etc.
  const { existing, rest } = splitExisting(resolve(expanded));
  const real = join(realOrSelf(existing), ...rest);
  const problem = problemOf(real, platform, home);
  if (problem === 'system')
    refuse(`${real} is a system folder; meshes cannot be saved there.`, CHOOSE_ANOTHER);
  if (problem === 'outside' && !env.picked)
    refuse(`${real} is outside your home folder and the places for your own files.`, CHOOSE_ANOTHER);
  // A hidden folder (~/.ssh, ~/.config/autostart) is where programs keep what they run or trust: a
  // typed path may not lead there (the folder picker, a person's own choice, may).
  if (!env.picked && within(real, home, platform === 'win32' ? '\\' : '/')) {
    // As drop-places.ts counts them: macOS keeps launch agents and settings in ~/Library, Windows its
    // startup folder and settings in AppData.
    const hidden = real
      .slice(home.length)
      .split(/[\\/]/)
      .find(
        (part) =>
          part.startsWith('.') ||
          (platform === 'darwin' && part === 'Library') ||
          (platform === 'win32' && part.toLowerCase() === 'appdata'),
      );
    if (hidden)
      refuse(
        `${real} is inside the hidden folder ${hidden}, where programs keep their own files.`,
        CHOOSE_ANOTHER,
      );
  }
  const existingReal = realOrSelf(existing);
  // A folder another user made in the shared temporary folder: they could swap the scan's subfolder
  // for a link and have the meshes written where they choose.
  const owner = statSync(existingReal).uid;
  const me = process.getuid?.();
  if (
    platform !== 'win32' &&
    me !== undefined &&
    owner !== me &&
    existingReal !== realOrSelf(tmpdir()) &&
    within(existingReal, realOrSelf(tmpdir()), '/')
  )
    refuse(`${existingReal} belongs to another user of this computer.`, CHOOSE_ANOTHER);
  if (!statSync(existingReal).isDirectory())
    refuse(
      `${existingReal} is a file, not a folder.`,
      'Choose a folder, or a new folder name next to that file.',
    );
  try {
    accessSync(existingReal, constants.W_OK);
  } catch {
    refuse(`The app may not write in ${existingReal}.`, CHOOSE_ANOTHER);
  }
  return { path: real, exists: rest.length === 0 };
}

/** Checks the folder again (it may have changed since the user confirmed it) and creates it. */
export function prepareOutputFolder(typed: string, env: OutputFolderEnv = {}): string {
  const { path } = checkOutputFolder(typed, env);
  try {
    // Meshes are made from patient scans: folders made for them are the user's alone (0700).
    mkdirSync(path, { recursive: true, mode: 0o700 });
  } catch {
    refuse(`The folder ${path} could not be created.`, CHOOSE_ANOTHER);
  }
  // A link swapped in between the check and the creation would show here.
  const real = realOrSelf(path);
  if (relative(real, path) !== '') refuse(`${path} changed while it was being created.`, 'Try again.');
  return path;
}
