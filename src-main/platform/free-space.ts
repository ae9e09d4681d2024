import { statfs } from 'node:fs/promises';

/**
 * Bytes the user may still write on the file system holding `dir`; infinite when the system cannot
 * say (the write itself then fails in words where the disk is full).
 */
export async function freeBytes(dir: string): Promise<number> {
  try {
    const s = await statfs(dir);
    return s.bavail * s.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
