import { link, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import { PLY_TYPE_BYTES } from '../../src-shared/ply-types.js';

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
/** Bytes of a mesh's end read for its check: an ASCII STL's "endsolid" line. */
const TAIL_BYTES = 1024;

/**
 * Whether a downloaded mesh is whole, by what its format says of its own length, where that is cheap
 * to read (the first 64 KiB and the last 1 KiB). The service's `size` cannot say it: its unit is not
 * stated. The rules are the viewer's (src-renderer/viewer/formats/, which the main process does not
 * import), so that nothing is saved that the viewer would call cut off: a binary STL has exactly 84 +
 * 50 bytes per triangle of its header's count; an ASCII STL ends with "endsolid"; a PLY's header ends
 * and, when binary, announces no more bytes than the file has; a Draco file starts with "DRACO". An OBJ
 * has no such mark: only an empty one is refused. Other extensions are not checked. `name`: the mesh
 * as the user knows it (the path is a temporary file's). Throws a final (non-retryable) AppError: the
 * transfer has tried again already, and the same broken file again is no outage to wait out.
 */
export async function checkMeshFile(path: string, extension: string, name = basename(path)): Promise<void> {
  const ext = extension.toLowerCase();
  if (!(ext in MESH_CHECKS)) return;
  const { head, tail, size } = await readEnds(path);
  const fault = size === 0 ? 'it is empty' : MESH_CHECKS[ext as MeshExtension](head, tail, size);
  if (fault === undefined) return;
  throw new AppError('service', `The downloaded mesh ${name} is not a whole ${ext} file: ${fault}.`, {
    action: 'Retry the job to download it again; if it happens again, report it to the service operator.',
  });
}

type MeshExtension = '.stl' | '.ply' | '.obj' | '.drc';

/** Per format: what is wrong with the file, or undefined. */
const MESH_CHECKS: Record<MeshExtension, (head: Buffer, tail: Buffer, size: number) => string | undefined> = {
  '.stl': stlFault,
  '.ply': plyFault,
  '.obj': () => undefined,
  '.drc': (head) =>
    head.toString('latin1', 0, 5) === 'DRACO' ? undefined : 'it does not start with "DRACO"',
};

async function readEnds(path: string): Promise<{ head: Buffer; tail: Buffer; size: number }> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const head = Buffer.alloc(Math.min(size, HEAD_BYTES));
    await file.read(head, 0, head.length, 0);
    const tail = Buffer.alloc(Math.min(size, TAIL_BYTES));
    await file.read(tail, 0, tail.length, size - tail.length);
    return { head, tail, size };
  } finally {
    await file.close();
  }
}

/** STLLoader's rule: the size fitting the triangle count means binary, whatever the 80-byte header says. */
function stlFault(head: Buffer, tail: Buffer, size: number): string | undefined {
  const triangles = size >= 84 ? head.readUInt32LE(80) : undefined;
  if (triangles !== undefined && 84 + 50 * triangles === size) return undefined;
  if (isMostlyText(head) && /^\s*solid/.test(head.toString('latin1', 0, 512)))
    return /(^|\n)\s*endsolid\b[^\n]*\s*$/.test(tail.toString('latin1'))
      ? undefined
      : 'it is an ASCII STL that does not end with "endsolid"';
  return triangles === undefined
    ? `it has only ${size} bytes, too short for a binary STL, and is not an ASCII STL`
    : `it is a binary STL whose header announces ${triangles} triangles (${84 + 50 * triangles} bytes) but it has ${size} bytes`;
}

/** As the viewer tells text from binary: nearly all of the first KiB printable. */
function isMostlyText(head: Buffer): boolean {
  const n = Math.min(head.length, 1024);
  let printable = 0;
  for (let i = 0; i < n; i++) {
    const b = head[i] as number;
    if (b === 9 || b === 10 || b === 13 || (b >= 32 && b < 127)) printable++;
  }
  return n > 0 && printable / n > 0.98;
}

/** A PLY's header ends; a binary one's elements need no more bytes than the file has (faces as triangles). */
function plyFault(head: Buffer, _tail: Buffer, size: number): string | undefined {
  const text = head.toString('latin1');
  if (!/^ply\r?\n/.test(text)) return 'it does not start with "ply"';
  const end = /(^|\n)end_header\r?\n/.exec(text);
  if (!end) return 'its header never ends ("end_header" is missing)';
  const headerBytes = end.index + end[0].length;
  const lines = text.slice(0, end.index).split(/\r?\n/);
  const format = lines.find((l) => l.startsWith('format '))?.split(/\s+/)[1] ?? '';
  if (!format.startsWith('binary')) return undefined;
  const need = headerBytes + plyBodyBytes(lines);
  if (Number.isNaN(need)) return 'its header has an element count or type that cannot be read';
  return need > size ? `its header announces at least ${need} bytes but it has ${size}` : undefined;
}

/** The fewest body bytes a binary PLY's elements take (lists of 3, as a triangle's corners); NaN when unreadable. */
function plyBodyBytes(lines: readonly string[]): number {
  let bytes = 0;
  let count = 0;
  for (const line of lines) {
    const w = line.trim().split(/\s+/);
    if (w[0] === 'element') count = /^\d+$/.test(w[2] ?? '') ? Number(w[2]) : NaN;
    else if (w[0] === 'property' && w[1] === 'list') bytes += count * (typeBytes(w[2]) + 3 * typeBytes(w[3]));
    else if (w[0] === 'property') bytes += count * typeBytes(w[1]);
  }
  return bytes;
}

function typeBytes(type: string | undefined): number {
  return PLY_TYPE_BYTES[type ?? ''] ?? NaN;
}
