import { chmod, mkdir } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';

/**
 * Copies of patient data (scans, unpacked slices, meshes, the records that name them) are private to
 * the user while they exist: folders 0700, files 0600. A mode given at creation is narrowed by the
 * umask only, never widened; chmod is for folders that existed before (made by an older version).
 * Windows ignores these modes: a user's folders there are private by their ACLs.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates the folder (and any missing parents, private too) and makes it private if it existed. */
export async function privateDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  await chmod(path, PRIVATE_DIR_MODE);
}

/**
 * Creates `path` and the folders between `base` and it, private, one level at a time; `base` must
 * exist and is never made. For work inside a temporary folder: file work under way in the thread pool
 * or on a worker goes on while a signal's handler removes that folder (platform/temp-folders.ts), and
 * a recursive mkdir landing after the removal would bring the whole folder back, patient data and
 * all, to outlive the process. This one fails instead, as the folder is gone.
 */
export async function privateDirUnder(base: string, path: string): Promise<void> {
  const steps = relative(base, path);
  if (steps.startsWith('..') || isAbsolute(steps)) throw new Error(`${path} is not under ${base}`);
  let at = base;
  for (const step of steps.split(sep).filter(Boolean)) {
    at = join(at, step);
    try {
      await mkdir(at, { mode: PRIVATE_DIR_MODE });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  if (at !== base) await chmod(at, PRIVATE_DIR_MODE);
}
