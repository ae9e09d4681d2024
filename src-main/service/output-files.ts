import { link, rename, unlink, access } from 'node:fs/promises';
import { extname } from 'node:path';
import { AppError } from '../../src-shared/errors.js';

/** What to do when the destination of a download exists already. */
export type OnExists = 'rename' | 'error' | 'overwrite';

/** "mandible.stl" -> "mandible (2).stl" */
export function numberedName(path: string, n: number): string {
  const ext = extname(path);
  return `${path.slice(0, path.length - ext.length)} (${n})${ext}`;
}

/**
 * Moves a finished temporary file into place without ever replacing an existing file silently:
 * a hard link fails atomically when the name is taken, so two downloads cannot pick the same name.
 * Returns the path used.
 */
export async function placeFile(tmp: string, dest: string, onExists: OnExists): Promise<string> {
  if (onExists === 'overwrite') {
    await rename(tmp, dest);
    return dest;
  }
  for (let n = 1; n <= 999; n++) {
    const candidate = n === 1 ? dest : numberedName(dest, n);
    try {
      await link(tmp, candidate);
      await unlink(tmp);
      return candidate;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') {
        if (onExists === 'error') throw existsError(dest);
        continue;
      }
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EOPNOTSUPP') throw e;
      // A file system without hard links (FAT, some network shares): check, then rename.
      if (await exists(candidate)) {
        if (onExists === 'error') throw existsError(dest);
        continue;
      }
      await rename(tmp, candidate);
      return candidate;
    }
  }
  throw new AppError('bad-input', `Too many files named like ${dest} exist already.`, {
    action: 'Choose another output folder or tidy this one.',
  });
}

function existsError(dest: string): AppError {
  return new AppError('bad-input', `${dest} exists already and is not overwritten.`, {
    action: 'Move or delete it, or choose another output folder.',
  });
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
