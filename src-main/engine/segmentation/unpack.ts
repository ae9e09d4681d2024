import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, stat } from 'node:fs/promises';
import { dirname, join, posix, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type TransformCallback } from 'node:stream';
import { createGunzip, inflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import { AppError } from '../../../src-shared/errors.js';
import { diskSlices, memorySlices, type SliceSource } from '../../scans/slice-source.js';
import type { CbctExtension } from './plan.js';

/** More than any scan holds; a zip that inflates beyond it is a zip bomb or not a scan. */
const MAX_UNPACKED_BYTES = 8 * 1024 ** 3;
const MAX_ENTRIES = 20_000;
/**
 * A zip up to this size is read into memory whole and its files are handed to the volume reader
 * from there (stored entries as views of it, deflated ones inflated up to the same budget again),
 * instead of written to the work folder only to be read straight back: that cost about half a
 * second of the local job. A dental scan fits (the 140-slice fixture is 73 MB); a bigger zip, or
 * what exceeds the budget, goes to disk as before, so memory stays bounded.
 */
const IN_MEMORY_BYTES = 512 * 1024 ** 2;

/** The slice files of an input: their names (paths) in order, and where their bytes are read from. */
export interface UnpackedInput {
  files: string[];
  source: SliceSource;
}

const badZip = (message: string, cause?: unknown): AppError =>
  new AppError('bad-input', message, {
    action: 'Send the DICOM series as a plain zip of its slice files.',
    ...(cause === undefined ? {} : { cause }),
  });

/** A stream stage that fails once more than `limit` bytes have passed. */
function byteLimit(limit: { left: number }, what: string): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      limit.left -= chunk.length;
      if (limit.left < 0) cb(badZip(`${what} unpacks to more than ${MAX_UNPACKED_BYTES / 1024 ** 3} GiB.`));
      else cb(null, chunk);
    },
  });
}

/**
 * Turns the uploaded input into the DICOM files the volume reader takes: a .gz is inflated with zlib
 * streams, a .zip is unpacked with yauzl into memory (up to `inMemoryBytes`) and past that into
 * `workDir` (entries named with `..`, absolute paths or drive letters are refused, never written
 * outside the folder).
 */
export async function unpackInput(
  input: { path: string; extension: string },
  workDir: string,
  signal?: AbortSignal,
  inMemoryBytes = IN_MEMORY_BYTES,
): Promise<UnpackedInput> {
  const ext = input.extension.toLowerCase() as CbctExtension;
  let path = input.path;
  const limit = { left: MAX_UNPACKED_BYTES };
  if (ext.endsWith('.gz')) {
    const inner = ext.slice(0, -3);
    const out = join(workDir, `input${inner}`);
    await mkdir(workDir, { recursive: true });
    try {
      await pipeline(
        createReadStream(path),
        createGunzip(),
        byteLimit(limit, 'The gzip file'),
        createWriteStream(out),
        {
          ...(signal ? { signal } : {}),
        },
      );
    } catch (e) {
      if (e instanceof AppError) throw e;
      if (signal?.aborted) throw new AppError('canceled', 'The job was canceled.');
      throw new AppError('bad-input', `The input is not a valid gzip file (${(e as Error).message}).`, {
        action: `Send the scan as ${inner} or compress it with gzip.`,
        cause: e,
      });
    }
    path = out;
  }
  if (ext.startsWith('.zip')) {
    const memory = { left: inMemoryBytes, files: new Map<string, Buffer>() };
    const files = await unzip(path, join(workDir, 'slices'), limit, memory, signal);
    return { files, source: memory.files.size > 0 ? memorySlices(memory.files) : diskSlices };
  }
  return { files: [path], source: diskSlices };
}

function openZip(path: string, whole: Buffer | null): Promise<yauzl.ZipFile> {
  return new Promise((res, rej) => {
    const done = (err: Error | null, zip?: yauzl.ZipFile): void => {
      if (err || !zip)
        rej(badZip(`The input is not a readable zip file (${err?.message ?? 'no archive'}).`, err));
      else res(zip);
    };
    if (whole) yauzl.fromBuffer(whole, { lazyEntries: true }, done);
    else yauzl.open(path, { lazyEntries: true, autoClose: true }, done);
  });
}

const LOCAL_HEADER = 0x04034b50;

/**
 * An entry's bytes from the zip in memory: a view for a stored entry, inflated for a deflated one
 * (null when that would exceed the memory budget: the caller writes it to disk instead). The same
 * checks as yauzl's streams: the local header is where the directory says, sizes match.
 */
function entryInMemory(
  whole: Buffer,
  entry: yauzl.Entry,
  limit: { left: number },
  memory: { left: number },
): Buffer | null {
  const name = entry.fileName;
  const at = entry.relativeOffsetOfLocalHeader;
  if (entry.isEncrypted()) throw badZip(`The zip entry "${name}" is encrypted.`);
  if (at + 30 > whole.length || whole.readUInt32LE(at) !== LOCAL_HEADER)
    throw badZip(`The zip file is damaged (no local header for "${name}").`);
  const start = at + 30 + whole.readUInt16LE(at + 26) + whole.readUInt16LE(at + 28);
  const end = start + entry.compressedSize;
  if (end > whole.length) throw badZip(`The zip file is damaged ("${name}" runs past its end).`);
  const size = entry.uncompressedSize;
  limit.left -= size;
  if (limit.left < 0)
    throw badZip(`The zip file unpacks to more than ${MAX_UNPACKED_BYTES / 1024 ** 3} GiB.`);
  if (entry.compressionMethod === 0) {
    if (size !== entry.compressedSize)
      throw badZip(`The zip file is damaged ("${name}" has two different sizes).`);
    return whole.subarray(start, end);
  }
  if (entry.compressionMethod !== 8)
    throw badZip(
      `The zip entry "${name}" is compressed with method ${entry.compressionMethod}, not deflate.`,
    );
  if (size > memory.left) {
    limit.left += size; // counted again when it is written out
    return null;
  }
  memory.left -= size;
  let bytes: Buffer;
  try {
    bytes = inflateRawSync(whole.subarray(start, end), { maxOutputLength: Math.max(1, size) });
  } catch (e) {
    throw badZip(`The zip file is damaged ("${name}" does not inflate: ${(e as Error).message}).`, e);
  }
  if (bytes.length !== size)
    throw badZip(`The zip file is damaged ("${name}" inflates to ${bytes.length} bytes, not ${size}).`);
  return bytes;
}

/**
 * A file read whole onto a SharedArrayBuffer: the slices that are views of it reach the mesh workers
 * without a copy (volume planes are copied there, job-volume.ts).
 */
async function readShared(path: string, size: number): Promise<Buffer> {
  const bytes = Buffer.from(new SharedArrayBuffer(size));
  const file = await open(path, 'r');
  try {
    let at = 0;
    while (at < size) {
      const { bytesRead } = await file.read(bytes, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return at === size ? bytes : bytes.subarray(0, at);
  } finally {
    await file.close();
  }
}

/** Why a zip entry name cannot be written inside the target folder, or null when it can. */
export function unsafeEntryName(name: string): string | null {
  if (name.includes('\\')) return 'uses backslashes';
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) return 'is an absolute path';
  if (name.split('/').includes('..')) return 'climbs out of the archive with ".."';
  return null;
}

async function unzip(
  path: string,
  dest: string,
  limit: { left: number },
  memory: { left: number; files: Map<string, Buffer> },
  signal?: AbortSignal,
): Promise<string[]> {
  const size = (await stat(path)).size;
  const whole = size <= memory.left ? await readShared(path, size) : null;
  if (whole) memory.left -= whole.length;
  const zip = await openZip(path, whole);
  const root = resolve(dest);
  const files: string[] = [];
  let entries = 0;
  try {
    await new Promise<void>((res, rej) => {
      const fail = (e: unknown): void => {
        zip.close();
        const msg = e instanceof Error ? e.message : String(e);
        // yauzl checks entry names itself before we see them (the same rules as unsafeEntryName).
        const named = /^(invalid characters in fileName|absolute path|invalid relative path): (.*)$/.exec(
          msg,
        );
        if (e instanceof AppError) rej(e);
        else if (named)
          rej(
            badZip(
              `The zip entry "${named[2]}" would be written outside its folder (${named[1]}); it is refused.`,
              e,
            ),
          );
        else rej(badZip(`The zip file is damaged (${msg}).`, e));
      };
      zip.on('error', fail);
      zip.on('end', () => res());
      zip.on('entry', (entry: yauzl.Entry) => {
        void (async () => {
          if (signal?.aborted) throw new AppError('canceled', 'The job was canceled.');
          if (++entries > MAX_ENTRIES) throw badZip(`The zip file holds more than ${MAX_ENTRIES} entries.`);
          const name = entry.fileName;
          const unsafe = unsafeEntryName(name);
          if (unsafe) throw badZip(`The zip entry "${name}" ${unsafe}; it is refused.`);
          const base = posix.basename(name);
          // Folders, and the resource forks and hidden files that Finder adds, carry no slices.
          if (name.endsWith('/') || name.startsWith('__MACOSX/') || base.startsWith('.')) return;
          const target = resolve(root, ...name.split('/'));
          if (!target.startsWith(root + sep))
            throw badZip(`The zip entry "${name}" points outside the archive.`);
          files.push(target);
          const held = whole ? entryInMemory(whole, entry, limit, memory) : null;
          if (held) {
            memory.files.set(target, held);
            return;
          }
          const stream = await new Promise<NodeJS.ReadableStream>((ok, ko) =>
            zip.openReadStream(entry, (err, s) => (err || !s ? ko(err ?? new Error('no stream')) : ok(s))),
          );
          await mkdir(dirname(target), { recursive: true });
          await pipeline(stream, byteLimit(limit, 'The zip file'), createWriteStream(target));
        })().then(() => zip.readEntry(), fail);
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  if (files.length === 0) throw badZip('The zip file holds no files.');
  return files.sort();
}
