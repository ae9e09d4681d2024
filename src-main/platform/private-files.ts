import { chmod, mkdir } from 'node:fs/promises';

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
