import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline as pipelineCallback, Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createGunzip } from 'node:zlib';
import type { Entry, ZipFile } from 'yauzl';
import {
  ArchiveRefused,
  byteLimit,
  checkEntries,
  gzipLimit,
  withDefaults,
  type ArchiveLimits,
} from './archive-limits.js';
import { freeBytes } from '../platform/free-space.js';
import { PRIVATE_DIR_MODE, privateDirUnder } from '../platform/private-files.js';
import { formatBytes } from '../../src-shared/format-bytes.js';
import { SNIFF_BYTES, sniffDicom } from './dicom-sniff.js';
import { isLinkEntry, openZipFile, type OpenZip } from './zip-file-reader.js';

export { ArchiveRefused, type ArchiveLimits } from './archive-limits.js';

/** What kind of archive, if any, the first bytes of a file announce. */
export function archiveKind(head: Uint8Array): 'zip' | 'gzip' | null {
  if (
    head.length >= 4 &&
    head[0] === 0x50 &&
    head[1] === 0x4b &&
    (head[2] === 3 || head[2] === 5) &&
    (head[3] === 4 || head[3] === 6)
  ) {
    return 'zip';
  }
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  return null;
}

/** Every entry's metadata, without reading any content; yauzl refuses absolute and `..` names here. */
function listEntries(zip: ZipFile, maxEntries: number): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    zip.on('entry', (e: Entry) => {
      entries.push(e);
      if (entries.length > maxEntries) {
        zip.close();
        reject(new ArchiveRefused(`it holds more than ${maxEntries} files`));
        return;
      }
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', (e: Error) => reject(e));
    zip.readEntry();
  });
}

/** Whether unpacked bytes that start with `head` are worth writing whole: DICOM, or an archive to open. */
function worthWriting(head: Uint8Array, size: number): boolean {
  return archiveKind(head) !== null || sniffDicom(head.subarray(0, SNIFF_BYTES), size) !== null;
}

/** Reads from `it` until at least SNIFF_BYTES have come, or the stream ended. */
async function readHead(it: AsyncIterator<Buffer>): Promise<{ head: Buffer; ended: boolean }> {
  const chunks: Buffer[] = [];
  let length = 0;
  while (length < SNIFF_BYTES) {
    const r = await it.next();
    if (r.done) return { head: Buffer.concat(chunks), ended: true };
    chunks.push(r.value);
    length += r.value.length;
  }
  return { head: Buffer.concat(chunks), ended: false };
}

/** The stream again from its start: the head already read, then what `it` still holds. */
async function* headThenRest(head: Buffer, it: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  yield head;
  for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
}

/**
 * Unpacks one stream: whole, to the path `makeTarget` gives, when its first bytes are DICOM or
 * another archive; else only those first bytes, all that the reason for skipping it needs (what it
 * is, and whether it is empty), through `keepSample`. A bomb of zeros, or a zip of thousands of
 * notes, then costs a few hundred bytes instead of its size. `size` is the size declared for the
 * stream, when there is one. Returns where the bytes went.
 */
async function writeUnpacked(
  stream: Readable,
  size: number,
  makeTarget: () => Promise<string>,
  guard: Transform,
  keepSample: (head: Buffer) => Promise<string>,
  crc?: number,
): Promise<string> {
  const it = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  try {
    const { head, ended } = await readHead(it);
    if (!worthWriting(head, size)) return await keepSample(head.subarray(0, SNIFF_BYTES));
    const target = await makeTarget();
    if (ended) {
      if (crc !== undefined && crc32(head) !== crc) throw new EntryDamaged();
      await writeFile(target, head, { mode: 0o600 });
    } else {
      const out = createWriteStream(target, { mode: 0o600 });
      if (crc === undefined) await pipeline(headThenRest(head, it), guard, out);
      else await pipeline(headThenRest(head, it), guard, crcCheck(crc), out);
    }
    return target;
  } finally {
    // Stops the unpacking of whatever was not read (and closes the entry's stream).
    await it.return?.();
  }
}

/** An entry whose unpacked bytes are not the ones the archive recorded (their CRC-32 differs). */
class EntryDamaged extends Error {}

/**
 * Passes bytes on and checks, at their end, the CRC-32 the zip recorded for them: yauzl checks an
 * entry's size but not its checksum, so a changed byte in a stored entry (a slice's pixels) went
 * through unseen, where unzip and pydicom's zipfile refuse it.
 */
function crcCheck(expected: number): Transform {
  let crc = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      crc = crc32(chunk, crc);
      done(null, chunk);
    },
    flush(done) {
      done(crc === expected ? null : new EntryDamaged());
    },
  });
}

/**
 * Keeps the first bytes of entries that are not unpacked, one file for each distinct start: entries
 * that start alike are told apart by their names, and a zip of 50,000 notes makes one file, not
 * 50,000 (whose creation, and removal, took most of a minute).
 */
function sampleStore(outDir: string): (head: Buffer) => Promise<string> {
  // Promises, so that two entries of one start under way at once share one file.
  const byHead = new Map<string, Promise<string>>();
  return (head) => {
    const key = createHash('sha256').update(head).digest('base64');
    let written = byHead.get(key);
    if (!written) {
      // '#' never survives safeName, so these names cannot clash with an entry's.
      const path = join(outDir, `#start-${byHead.size + 1}`);
      written = writeFile(path, head, { mode: 0o600 }).then(() => path);
      byHead.set(key, written);
    }
    return written;
  };
}

/**
 * Unpacks a zip into `outDir`, refusing it whole before writing anything when an entry name is
 * absolute or climbs out with `..`, when it holds too many entries, when it is encrypted, or when
 * its declared size is more than the limit, the free disk space or what its own size could hold.
 * Sizes are enforced while unpacking too (yauzl checks each entry against its declared size), so a
 * lying archive cannot fill the disk. Entries that are neither DICOM nor archives keep only their
 * first bytes (see writeUnpacked). Returns the paths written, with the entry names they came from.
 */
export async function extractZip(
  zipPath: string,
  outDir: string,
  opts: { limits?: ArchiveLimits; signal?: AbortSignal; drop?: DropRoom } = {},
): Promise<UnpackedEntry[]> {
  const limits = withDefaults(opts.limits);
  let opened: OpenZip | undefined;
  try {
    // Left open after the listing: the entries checked are the ones unpacked.
    opened = await openZipFile(zipPath, {
      lazyEntries: true,
      autoClose: false,
      validateEntrySizes: true,
      strictFileNames: false,
    });
    const { zip } = opened;
    // The entries listed are the ones unpacked, from the same open file: what was checked is what is written.
    const listed = (await listEntries(zip, limits.maxEntries)).filter((e) => !e.fileName.endsWith('/'));
    // A link stored as a link (zip -y, macOS's Compress) holds its target's name, not the file: it
    // was unpacked as a 12-byte "damaged" slice that cost its series (a review). Never followed.
    const links = listed.filter(isLinkEntry);
    const files = listed.filter((e) => !isLinkEntry(e));
    const declared = files.reduce((s, e) => s + e.uncompressedSize, 0);
    // The folder's parent exists already; nothing is created before the archive is accepted.
    const room = Math.min(limits.maxBytes, (await freeBytes(dirname(outDir))) * 0.9);
    if (declared > room) {
      throw new ArchiveRefused(
        `it says it unpacks to ${formatBytes(declared)}, more than scan2mesh allows (${formatBytes(room)} here)`,
      );
    }
    checkEntries(files, (await stat(zipPath)).size, limits);
    // Sizes are enforced as declared while unpacking: the declared total is what may be written.
    if (opts.drop && declared > opts.drop.bytes) throw new ArchiveRefused(opts.drop.refusal);
    await privateDirUnder(dirname(outDir), outDir);
    try {
      const unpacked = await unpackEntries(zip, files, outDir, opts.signal);
      return [...unpacked, ...links.map((e) => ({ entryName: e.fileName, link: true }))];
    } catch (e) {
      // What was unpacked of a refused archive is of no use: its space is given back at once.
      await rm(outDir, { recursive: true, force: true });
      throw e;
    }
  } catch (e) {
    // A full disk is said as such by the caller; anything else is the archive's fault.
    throw diskFull(e) ? e : describeZipError(e);
  } finally {
    await opened?.close();
  }
}

/**
 * Entries unpacked at once. Each waits on the system's threads in turn (its header read, its data
 * read, its inflation, its write): several in flight overlap some of those waits, about a fifth of
 * the time of a zip of 50,000 small files. More would not help: yauzl reads its file one read at a
 * time.
 */
const ENTRIES_AT_ONCE = 4;

/**
 * An entry of a zip: where it was unpacked, or, when its own bytes are damaged (they do not inflate,
 * do not add up to its declared size, or fail their CRC-32), no path: the other entries are unpacked
 * all the same. What was written of a damaged one is kept apart (`damagedPath`), so that the series
 * it still names can be told that one of its files is damaged.
 */
/**
 * What is left of the budget of the drop an archive is part of (intake-archives.ts), and the refusal
 * past it: checked after the archive's own limits, whose refusals say more.
 */
export interface DropRoom {
  bytes: number;
  refusal: string;
}

export interface UnpackedEntry {
  entryName: string;
  path?: string;
  damagedPath?: string;
  /** A symbolic link, left out unread. */
  link?: boolean;
}

/**
 * Unpacks the given entries, a few at a time; the answer keeps the archive's order. An entry whose
 * bytes are damaged is left out and the others go on: one bad slice
 * does not cost the rest of the scan. On any other failure (a limit passed, a full disk, a cancel) no
 * further entry is started, and the ones under way are waited for (so that nothing is written after
 * the caller removes the folder).
 */
async function unpackEntries(
  zip: ZipFile,
  files: Entry[],
  outDir: string,
  signal: AbortSignal | undefined,
): Promise<UnpackedEntry[]> {
  const place = entryTargets(outDir);
  // Named in the archive's order, whatever order they end in.
  const targets = files.map((e) => place(e.fileName));
  const keepSample = sampleStore(outDir);
  const out = new Array<UnpackedEntry>(files.length);
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (next < files.length && !failed) {
      if (signal?.aborted) throw new ArchiveRefused('canceled');
      const i = next++;
      const entry = files[i]!;
      const size = entry.uncompressedSize;
      let made: string | undefined;
      const target = async (): Promise<string> => (made = await targets[i]!());
      try {
        const stream = await openEntry(zip, entry);
        const limit = byteLimit(size, 'an entry');
        const path = await writeUnpacked(stream, size, target, limit, keepSample, entry.crc32);
        out[i] = { path, entryName: entry.fileName };
      } catch (e) {
        if (e instanceof ArchiveRefused || diskFull(e) || signal?.aborted) throw e;
        out[i] = made ? { entryName: entry.fileName, damagedPath: made } : { entryName: entry.fileName };
      }
    }
  };
  const lanes = Array.from({ length: ENTRIES_AT_ONCE }, () =>
    lane().catch((e: unknown) => {
      failed = true;
      throw e;
    }),
  );
  const failure = (await Promise.allSettled(lanes)).find((r) => r.status === 'rejected');
  if (failure) throw failure.reason;
  return out;
}

function openEntry(zip: ZipFile, entry: Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => (err || !stream ? reject(err) : resolve(stream)));
  });
}

/**
 * Where each entry is written: in `outDir` under its own (cleaned) name, or, when an earlier entry
 * took that name (names repeat across the folders of a zip, or differ only in case), in a numbered
 * folder of its own, made when first written to. A folder for every entry would cost a mkdir each.
 */
function entryTargets(outDir: string): (entryName: string) => () => Promise<string> {
  const taken = new Set<string>();
  let clashes = 0;
  return (entryName) => {
    const name = safeName(entryName);
    const key = name.toLowerCase();
    if (!taken.has(key)) {
      taken.add(key);
      const path = join(outDir, name);
      return async () => path;
    }
    // '#' never survives safeName, so these folders cannot clash with an entry's name.
    const folder = join(outDir, `#${++clashes}`);
    return async () => {
      await mkdir(folder, { mode: PRIVATE_DIR_MODE });
      return join(folder, name);
    };
  };
}

/** Names Windows keeps for devices, whatever their extension: a file of that name cannot be made. */
const DEVICE_NAMES = /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i;

/** Last path segment only, stripped of anything a file system could misread. */
function safeName(entryName: string): string {
  const last = entryName.split('/').pop() ?? 'entry';
  const clean = last.replace(/[^\w.\- ]/g, '_').slice(0, 120);
  if (!clean || clean === '.' || clean === '..') return 'entry';
  return DEVICE_NAMES.test(clean) ? `_${clean}` : clean;
}

const diskFull = (e: unknown): boolean => (e as NodeJS.ErrnoException | undefined)?.code === 'ENOSPC';

function describeZipError(e: unknown): ArchiveRefused {
  if (e instanceof ArchiveRefused) return e;
  const text = e instanceof Error ? e.message : String(e);
  if (/absolute path|invalid relative path|invalid characters/.test(text)) {
    return new ArchiveRefused(
      `it contains a file that would be written outside the archive's folder (${text.replace(/^.*?: /, '')}); such archives are refused for safety`,
    );
  }
  // yauzl's own text stays out of the message: it means nothing to the user.
  return new ArchiveRefused('it is damaged or not a complete zip archive');
}

/**
 * Gunzips one file into `outPath`. What is not DICOM (nor an archive) keeps only its first bytes
 * (see writeUnpacked). The rest stops past `maxBytes`, or once it passes the ratio limit against
 * the compressed bytes read: a gzip's own size field is modulo 4 GiB and cannot be trusted, so the
 * stream is counted instead.
 */
export async function extractGzip(
  gzPath: string,
  outPath: string,
  opts: { maxBytes?: number; limits?: Partial<ArchiveLimits>; drop?: DropRoom } = {},
): Promise<void> {
  const limits = withDefaults({ ...opts.limits, maxBytes: opts.maxBytes ?? opts.limits?.maxBytes });
  await privateDirUnder(dirname(dirname(outPath)), dirname(outPath));
  const room = Math.min(limits.maxBytes, (await freeBytes(dirname(outPath))) * 0.9);
  const file = createReadStream(gzPath);
  // The callback form hands back the gunzip stream to read from; a read error of the file reaches it.
  const gunzipped = pipelineCallback(file, createGunzip(), () => {});
  try {
    const atOutPath = async (): Promise<string> => outPath;
    const keepSample = async (head: Buffer): Promise<string> => {
      await writeFile(outPath, head, { mode: 0o600 });
      return outPath;
    };
    // A gzip's size field is modulo 4 GiB: no size is known, and none limits what is taken for DICOM.
    const size = Number.POSITIVE_INFINITY;
    await writeUnpacked(
      gunzipped,
      size,
      atOutPath,
      gzipLimit(room, () => file.bytesRead, limits, opts.drop),
      keepSample,
    );
  } catch (e) {
    await rm(outPath, { force: true });
    if (e instanceof ArchiveRefused || diskFull(e)) throw e;
    throw new ArchiveRefused('it is damaged or not a complete gzip file');
  }
}
