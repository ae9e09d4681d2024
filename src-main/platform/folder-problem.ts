import { access, constants, mkdir, rmdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { AppError } from '../../src-shared/errors.js';

/**
 * Why a folder cannot be used (made when missing, then written in), in words; undefined when it can.
 * Nothing is left behind: a missing folder is only tried one level deep and removed again. Node's
 * recursive mkdir never returned for /proc/x (a review), so the nearest part that exists is judged
 * first, and a folder is tried in it without recursion.
 */
export async function folderProblem(path: string): Promise<string | undefined> {
  let existing = resolve(path);
  let below: string | undefined;
  for (;;) {
    const s = await stat(existing).catch((e: NodeJS.ErrnoException) => e);
    if (!(s instanceof Error)) {
      if (!s.isDirectory())
        return existing === resolve(path) ? 'is a file, not a folder' : `lies under ${existing}, a file`;
      break;
    }
    if (s.code !== 'ENOENT' && s.code !== 'ENOTDIR') return `cannot be looked at (${s.code ?? s.message})`;
    const parent = dirname(existing);
    if (parent === existing) return 'lies on no disk that exists';
    below = existing;
    existing = parent;
  }
  const writable = await access(existing, constants.W_OK | constants.X_OK).then(
    () => true,
    () => false,
  );
  if (!writable) return below ? `cannot be made: you may not write in ${existing}` : 'is not writable by you';
  if (below) {
    // The one check that also holds for root and for file systems that take no folders (/proc).
    const tried = await mkdir(below).then(
      () => undefined,
      (e: NodeJS.ErrnoException) => e,
    );
    if (tried) {
      if (tried.code === 'EEXIST') return undefined;
      return `cannot be made in ${existing} (${tried.code === 'EROFS' ? 'its disk is read-only' : 'that folder takes no new folders'})`;
    }
    await rmdir(below).catch(() => undefined);
  }
  return undefined;
}

/** The data folder web mode and every command but `inspect` keep the queue, settings and logs in. */
export async function checkDataFolder(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const problem = await folderProblem(dir);
  if (!problem) return;
  const what = env.SCAN2MESH_DATA_DIR
    ? `the data folder ${dir} (SCAN2MESH_DATA_DIR) ${problem}`
    : `the data folder ${dir} ${problem}`;
  throw new AppError('bad-input', `${what}.`, {
    action: `Set SCAN2MESH_DATA_DIR to a folder you can write in (it is made when missing)${env.SCAN2MESH_DATA_DIR ? ', or unset it to use the default folder' : ''}.`,
  });
}
