import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Bytes under a path (a file or a folder), or null when it does not exist: what removing it frees.
 * Links are counted as themselves, never followed (a link out of a folder of scan copies, or a loop).
 */
export async function sizeOf(path: string): Promise<number | null> {
  let s;
  try {
    s = await lstat(path);
  } catch {
    return null;
  }
  if (!s.isDirectory()) return s.size;
  let total = 0;
  for (const name of await readdir(path).catch(() => [] as string[]))
    total += (await sizeOf(join(path, name))) ?? 0;
  return total;
}
