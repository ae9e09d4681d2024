/**
 * Folders of the operating system and of installed programs, where nothing of a user's is kept:
 * no scan is read from them (app/drop-places.ts) and no mesh written to them
 * (settings/output-folder.ts). Each of those adds the places its own use rules out besides.
 */

/** POSIX and macOS: programs, libraries, kernel views, devices, configuration, root's home. */
export const POSIX_SYSTEM_FOLDERS: readonly string[] = [
  '/bin',
  '/boot',
  '/dev',
  '/etc',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/proc',
  '/root',
  '/sbin',
  '/sys',
  '/usr',
  '/System',
  '/Library',
];

/** Windows, below a drive's root, compared in lower case. */
export const WINDOWS_SYSTEM_FOLDERS: readonly string[] = [
  '\\windows',
  '\\program files',
  '\\program files (x86)',
  '\\programdata',
];

/** Whether `child` is `parent` or lies below it (paths as the platform writes them). */
export const within = (child: string, parent: string, sep: string): boolean =>
  child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
