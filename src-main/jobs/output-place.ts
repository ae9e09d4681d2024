import { link, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import { MESH_EXTENSIONS, meshVerdict } from './mesh-check.js';
import type { MeshExtension } from './mesh-check.js';
import { CHUNK } from './mesh-scan.js';

/**
 * Downloads land in a hidden staging file beside their final name, then get the final name by a hard
 * link. A crash at any point leaves either nothing, a complete staging file, or a staging file and its
 * final name sharing one inode; `adoptPlaced` tells those apart, so a resumed download is never saved
 * twice under "name (2)" and an existing file of the user's is never replaced.
 */
export function stagingPath(dest: string, jobId: string, idx: number): string {
  return join(dirname(dest), `.${basename(dest)}.${jobId.slice(0, 8)}-${idx}.s2m`);
}

/**
 * Removes what an interrupted download left: the client's `.NAME.XXXX.part` files of the staging file.
 * Says whether the staging file itself is there (the folder is read anyway: no second look is needed
 * to know that it is not).
 */
export async function removePartials(staging: string): Promise<boolean> {
  const dir = dirname(staging);
  const own = basename(staging);
  const prefix = `.${own}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return false;
  }
  await Promise.all(
    names
      .filter((n) => n.startsWith(prefix) && n.endsWith('.part'))
      .map((n) => rm(join(dir, n), { force: true })),
  );
  return names.includes(own);
}

/** "mandible.stl" -> "mandible (2).stl" */
export function numberedName(path: string, n: number): string {
  const ext = extname(path);
  return `${path.slice(0, path.length - ext.length)} (${n})${ext}`;
}

/** What the placement looks at of a file: which inode it is, and its size. */
export interface FileId {
  ino: number;
  dev: number;
  size: number;
}

export async function statOrNull(path: string): Promise<FileId | null> {
  try {
    return await stat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

async function exists(path: string): Promise<boolean> {
  return (await statOrNull(path)) !== null;
}

/** Removes a file; one that is not there is fine. */
export async function removeFile(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/**
 * The final name a complete staging file (`s`, as statOrNull saw it) already has (a crash came between
 * the link and the record), or null. Placement takes the first free name, so the search stops at the
 * first name not taken.
 */
export async function adoptPlaced(s: FileId, dest: string): Promise<string | null> {
  for (let n = 1; n <= 999; n++) {
    const candidate = n === 1 ? dest : numberedName(dest, n);
    const c = await statOrNull(candidate);
    if (!c) return null;
    if (c.ino === s.ino && c.dev === s.dev) return candidate;
  }
  return null;
}

/** Gives the staging file its final name, "name (2).ext" when the name is taken. Returns the name used. */
export async function placeStaged(staging: string, dest: string): Promise<string> {
  for (let n = 1; n <= 999; n++) {
    const candidate = n === 1 ? dest : numberedName(dest, n);
    try {
      await link(staging, candidate);
      return candidate;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EOPNOTSUPP') throw e;
      // A file system without hard links (FAT, some shares): check, then rename. A crash between the
      // rename and its record can here leave a second copy on resume; nothing is ever overwritten.
      if (await exists(candidate)) continue;
      await rename(staging, candidate);
      return candidate;
    }
  }
  throw new AppError('bad-input', `Too many files named like ${dest} exist already.`, {
    action: 'Choose another output folder or tidy this one.',
  });
}

/** Bytes of a mesh's start read for its check: a PLY header, an STL's triangle count. */
const HEAD_BYTES = 64 * 1024;

/**
 * Whether a downloaded mesh is one the viewer will show: whole, of the format its extension says,
 * with triangles and coordinates anatomy can have (mesh-check.ts; the file is read once, in chunks).
 * The service's `size` cannot say it: its unit is not stated. Other extensions are not checked.
 * `name`: the mesh as the user knows it (the path is a temporary file's). Returns the note the saved
 * mesh carries, if any: what the viewer will warn of, or that it will not read the file at all.
 * Throws a final (non-retryable) AppError: the transfer has tried again already, and the same broken
 * file again is no outage to wait out.
 */
export async function checkMeshFile(
  path: string,
  extension: string,
  name = basename(path),
): Promise<string | undefined> {
  const ext = extension.toLowerCase();
  if (!MESH_EXTENSIONS.includes(ext)) return undefined;
  const { head, whole, size } = await readHead(path);
  const verdict =
    size === 0
      ? { fault: 'it is empty' }
      : await meshVerdict({ path, whole }, ext as MeshExtension, head, size);
  if ('note' in verdict) return verdict.note;
  throw new AppError(
    'service',
    `The downloaded mesh ${name} is not a usable ${ext} mesh: ${verdict.fault}.`,
    {
      action: 'Retry the job to download it again; if it happens again, report it to the service operator.',
    },
  );
}

/**
 * The file's first HEAD_BYTES, what every format's rules look at as its head (as the viewer's do);
 * and all of it when it is no longer than one chunk of the check's reads, so that the check does not
 * open it a second time.
 */
async function readHead(path: string): Promise<{ head: Buffer; whole: Buffer | undefined; size: number }> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const bytes = Buffer.alloc(size <= CHUNK ? size : HEAD_BYTES);
    const { bytesRead } = await file.read(bytes, 0, bytes.length, 0);
    // A file cut short since its stat: what was read is what there is.
    const read = bytes.subarray(0, bytesRead);
    const end = bytesRead < bytes.length ? bytesRead : size;
    return { head: read.subarray(0, HEAD_BYTES), whole: read.length === end ? read : undefined, size: end };
  } finally {
    await file.close();
  }
}
