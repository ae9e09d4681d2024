import {
  closeSync,
  createReadStream,
  createWriteStream,
  fstatSync,
  openSync,
  readSync,
  statSync,
} from 'node:fs';
import { dirname, join, posix, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type TransformCallback } from 'node:stream';
import { createGunzip, inflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import { AppError } from '../../../src-shared/errors.js';
import { PRIVATE_FILE_MODE, privateDirUnder } from '../../platform/private-files.js';
import { readRegionInto, type FileRegion } from '../../scans/file-region.js';
import { diskSlices, heldSlices, type SliceSource } from '../../scans/slice-source.js';
import type { CbctExtension } from './plan.js';
import { DEFAULT_LIMITS } from '../../scans/archive-limits.js';
import { formatBytes } from '../../../src-shared/format-bytes.js';

/** More than any scan holds; a zip that inflates beyond it is a zip bomb or not a scan. */
const MAX_UNPACKED_BYTES = 8 * 1024 ** 3;
const MAX_ENTRIES = 20_000;
/**
 * The stored entries of a zip (the app uploads its own zips stored) are handed to the volume reader
 * where they lie in the zip, and it reads their samples from there; deflated entries are inflated
 * into memory up to this many bytes in all, and what exceeds it is written to the work folder. Before,
 * the whole zip was read into memory and its slices copied out of it: on the 140-slice fixture the
 * read alone was about 120 ms of the local job, and the zip was held in memory beside its volume.
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

/**
 * What an upload may unpack to: as intake allows a dropped archive (archive-limits.ts), its own size
 * times the ratio limit, or the ratio-free allowance, and never more than MAX_UNPACKED_BYTES. With the
 * ceiling alone, a 7 MB zip of zeros wrote 7 GiB into the job's folder before its first entry was
 * found not to be DICOM (a review).
 */
function unpackBudget(uploadBytes: number): number {
  const { maxRatio, ratioFreeBytes } = DEFAULT_LIMITS;
  return Math.min(MAX_UNPACKED_BYTES, Math.max(ratioFreeBytes, maxRatio * uploadBytes));
}

const overBudget = (what: string, limit: { total: number }): AppError =>
  badZip(
    `${what} unpacks to more than ${formatBytes(limit.total)}, far more than a scan of its size could (a damaged or hostile archive).`,
  );

/** A stream stage that fails once more than `limit` bytes have passed. */
function byteLimit(limit: { left: number; total: number }, what: string): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      limit.left -= chunk.length;
      if (limit.left < 0) cb(overBudget(what, limit));
      else cb(null, chunk);
    },
  });
}

/**
 * Turns the uploaded input into the DICOM files the volume reader takes: a .gz is inflated with zlib
 * streams, a .zip is unpacked with yauzl into memory (up to `inMemoryBytes`) and past that into
 * `workDir` (entries named with `..`, absolute paths or drive letters are refused, never written
 * outside the folder). What is written is the patient's scan: private to the user (0600 in 0700).
 */
export async function unpackInput(
  input: { path: string; extension: string },
  workDir: string,
  signal?: AbortSignal,
  inMemoryBytes = IN_MEMORY_BYTES,
): Promise<UnpackedInput> {
  const ext = input.extension.toLowerCase() as CbctExtension;
  let path = input.path;
  const total = unpackBudget(statSync(path).size);
  const limit = { left: total, total };
  // Made here if missing, never with its parents (platform/private-files.ts says why).
  await privateDirUnder(dirname(workDir), workDir);
  if (ext.endsWith('.gz')) {
    const inner = ext.slice(0, -3);
    const out = join(workDir, `input${inner}`);
    try {
      await pipeline(
        createReadStream(path),
        createGunzip(),
        byteLimit(limit, 'The gzip file'),
        createWriteStream(out, { mode: PRIVATE_FILE_MODE }),
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
    // The zip's entries are counted again as they are unpacked: what the gzip held is the zip itself
    // (a review found a .zip.gz counted twice, at half the ratio a .zip has).
    limit.left = total;
  }
  if (ext.startsWith('.zip')) {
    const held: Held = { left: inMemoryBytes, files: new Map(), regions: new Map() };
    const files = await unzip(path, join(workDir, 'slices'), limit, held, signal);
    const some = held.files.size > 0 || held.regions.size > 0;
    return { files, source: some ? heldSlices(held.files, held.regions) : diskSlices };
  }
  return { files: [path], source: diskSlices };
}

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((res, rej) => {
    const done = (err: Error | null, zip?: yauzl.ZipFile): void => {
      if (err || !zip)
        rej(badZip(`The input is not a readable zip file (${err?.message ?? 'no archive'}).`, err));
      else res(zip);
    };
    yauzl.open(path, { lazyEntries: true, autoClose: true }, done);
  });
}

const LOCAL_HEADER = 0x04034b50;

/**
 * The entries read without writing them out: deflated ones inflated in memory (`left` bytes more at
 * most), stored ones where they lie in the zip.
 */
interface Held {
  left: number;
  files: Map<string, Buffer>;
  regions: Map<string, FileRegion>;
}

/** The zip being unpacked, open for reading its entries' headers and data. */
interface ZipOnDisk {
  path: string;
  fd: number;
  size: number;
}

/**
 * Where an entry's bytes lie in the zip (a stored entry), or its bytes inflated (a deflated one): null
 * when inflating would exceed the memory budget (the caller writes it to disk instead). The same
 * checks as yauzl's streams: the local header is where the directory says, sizes match.
 */
function entryHeld(
  zip: ZipOnDisk,
  entry: yauzl.Entry,
  limit: { left: number; total: number },
  held: Held,
): { region: FileRegion } | { bytes: Buffer } | null {
  const name = entry.fileName;
  const at = entry.relativeOffsetOfLocalHeader;
  if (entry.isEncrypted()) throw badZip(`The zip entry "${name}" is encrypted.`);
  const local = Buffer.alloc(30);
  if (
    at + 30 > zip.size ||
    readSync(zip.fd, local, 0, 30, at) !== 30 ||
    local.readUInt32LE(0) !== LOCAL_HEADER
  )
    throw badZip(`The zip file is damaged (no local header for "${name}").`);
  const start = at + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  const end = start + entry.compressedSize;
  if (end > zip.size) throw badZip(`The zip file is damaged ("${name}" runs past its end).`);
  const size = entry.uncompressedSize;
  limit.left -= size;
  if (limit.left < 0) throw overBudget('The zip file', limit);
  if (entry.compressionMethod === 0) {
    if (size !== entry.compressedSize)
      throw badZip(`The zip file is damaged ("${name}" has two different sizes).`);
    return { region: { file: zip.path, offset: start, size } };
  }
  if (entry.compressionMethod !== 8)
    throw badZip(
      `The zip entry "${name}" is compressed with method ${entry.compressionMethod}, not deflate.`,
    );
  if (size > held.left) {
    limit.left += size; // counted again when it is written out
    return null;
  }
  held.left -= size;
  const deflated = Buffer.allocUnsafe(entry.compressedSize);
  const region = { file: zip.path, offset: start, size: entry.compressedSize };
  readRegionInto(zip.fd, region, 0, region.size, deflated);
  let bytes: Buffer;
  try {
    bytes = inflateRawSync(deflated, { maxOutputLength: Math.max(1, size) });
  } catch (e) {
    throw badZip(`The zip file is damaged ("${name}" does not inflate: ${(e as Error).message}).`, e);
  }
  if (bytes.length !== size)
    throw badZip(`The zip file is damaged ("${name}" inflates to ${bytes.length} bytes, not ${size}).`);
  return { bytes };
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
  limit: { left: number; total: number },
  held: Held,
  signal?: AbortSignal,
): Promise<string[]> {
  const fd = openSync(path, 'r');
  try {
    return await unzipFrom({ path, fd, size: fstatSync(fd).size }, dest, limit, held, signal);
  } finally {
    closeSync(fd);
  }
}

async function unzipFrom(
  onDisk: ZipOnDisk,
  dest: string,
  limit: { left: number; total: number },
  held: Held,
  signal?: AbortSignal,
): Promise<string[]> {
  const zip = await openZip(onDisk.path);
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
          const kept = entryHeld(onDisk, entry, limit, held);
          if (kept && 'region' in kept) {
            held.regions.set(target, kept.region);
            return;
          }
          if (kept) {
            held.files.set(target, kept.bytes);
            return;
          }
          const stream = await new Promise<NodeJS.ReadableStream>((ok, ko) =>
            zip.openReadStream(entry, (err, s) => (err || !s ? ko(err ?? new Error('no stream')) : ok(s))),
          );
          await privateDirUnder(dirname(root), dirname(target));
          await pipeline(
            stream,
            byteLimit(limit, 'The zip file'),
            createWriteStream(target, { mode: PRIVATE_FILE_MODE }),
          );
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
