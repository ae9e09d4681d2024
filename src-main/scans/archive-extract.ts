import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, statfs } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { Entry, ZipFile } from 'yauzl';

/** Why an archive was refused, in plain words; the archive is then skipped as a whole. */
export class ArchiveRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveRefused';
  }
}

export interface ArchiveLimits {
  /** Most bytes one archive may unpack to; also capped by the free space of the target disk. */
  maxBytes: number;
  /** Most entries one archive may hold. */
  maxEntries: number;
}

const DEFAULT_LIMITS: ArchiveLimits = { maxBytes: 64 * 1024 ** 3, maxEntries: 200_000 };

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

export function formatBytes(n: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB', 'PB', 'EB'];
  let v = n;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return u === 0 ? `${n} bytes` : `${v.toFixed(1)} ${units[u]}`;
}

async function freeBytes(dir: string): Promise<number> {
  try {
    const s = await statfs(dir);
    return s.bavail * s.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

async function openZip(path: string): Promise<ZipFile> {
  // Loaded with the first archive: most drops hold none, and `inspect` should not pay for it.
  const { default: yauzl } = await import('yauzl');
  return new Promise((resolve, reject) => {
    yauzl.open(
      path,
      { lazyEntries: true, autoClose: true, validateEntrySizes: true, strictFileNames: false },
      (err, zip) => (err || !zip ? reject(err ?? new Error('cannot open')) : resolve(zip)),
    );
  });
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

/** Counts bytes flowing through and fails once more than `limit` have passed. */
function byteLimit(limit: number, what: string): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      if (seen > limit) cb(new ArchiveRefused(`${what} unpacks to more than ${formatBytes(limit)}`));
      else cb(null, chunk);
    },
  });
}

/**
 * Unpacks a zip into `outDir`, refusing it whole before writing anything when an entry name is
 * absolute or climbs out with `..`, when it holds too many entries, or when its declared size is
 * more than the limit or the free disk space. Sizes are enforced while unpacking too (yauzl checks
 * each entry against its declared size), so a lying archive cannot fill the disk.
 * Returns the paths written, with the entry names they came from.
 */
export async function extractZip(
  zipPath: string,
  outDir: string,
  opts: { limits?: ArchiveLimits; signal?: AbortSignal } = {},
): Promise<{ path: string; entryName: string }[]> {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  let entries: Entry[];
  try {
    entries = await listEntries(await openZip(zipPath), limits.maxEntries);
  } catch (e) {
    throw describeZipError(e);
  }
  const files = entries.filter((e) => !e.fileName.endsWith('/'));
  const declared = files.reduce((s, e) => s + e.uncompressedSize, 0);
  // The folder's parent exists already; nothing is created before the archive is accepted.
  const room = Math.min(limits.maxBytes, (await freeBytes(dirname(outDir))) * 0.9);
  if (declared > room) {
    throw new ArchiveRefused(
      `it says it unpacks to ${formatBytes(declared)}, more than scan2mesh allows (${formatBytes(room)} here)`,
    );
  }
  await mkdir(outDir, { recursive: true });
  const out: { path: string; entryName: string }[] = [];
  let zip: ZipFile;
  try {
    zip = await openZip(zipPath);
  } catch (e) {
    throw describeZipError(e);
  }
  const wanted = new Set(files.map((e) => e.fileName));
  let index = 0;
  await new Promise<void>((resolve, reject) => {
    const fail = (e: unknown): void => {
      zip.close();
      reject(describeZipError(e));
    };
    zip.on('error', fail);
    zip.on('end', () => resolve());
    zip.on('entry', (entry: Entry) => {
      if (opts.signal?.aborted) return fail(new ArchiveRefused('canceled'));
      if (!wanted.has(entry.fileName)) return zip.readEntry();
      // Names are numbered rather than trusted: entries may repeat or clash with each other.
      const target = join(outDir, String(index++).padStart(6, '0'), safeName(entry.fileName));
      // The folder first, then the stream: a stream left waiting emits its errors (yauzl's size
      // check) with nobody listening, which would take the process down.
      mkdir(dirname(target), { recursive: true }).then(() => {
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) return fail(err);
          pipeline(
            stream,
            byteLimit(entry.uncompressedSize, 'an entry'),
            createWriteStream(target, { mode: 0o600 }),
          ).then(() => {
            out.push({ path: target, entryName: entry.fileName });
            zip.readEntry();
          }, fail);
        });
      }, fail);
    });
    zip.readEntry();
  });
  return out;
}

/** Last path segment only, stripped of anything a file system could misread. */
function safeName(entryName: string): string {
  const last = entryName.split('/').pop() ?? 'entry';
  const clean = last.replace(/[^\w.\- ]/g, '_').slice(0, 120);
  return clean && clean !== '.' && clean !== '..' ? clean : 'entry';
}

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
 * Gunzips one file into `outPath`, stopping past `maxBytes` (a gzip's own size field is modulo
 * 4 GiB and cannot be trusted, so the stream is counted instead).
 */
export async function extractGzip(
  gzPath: string,
  outPath: string,
  opts: { maxBytes?: number } = {},
): Promise<void> {
  await mkdir(dirname(outPath), { recursive: true });
  const room = Math.min(opts.maxBytes ?? DEFAULT_LIMITS.maxBytes, (await freeBytes(dirname(outPath))) * 0.9);
  try {
    await pipeline(
      createReadStream(gzPath),
      createGunzip(),
      byteLimit(room, 'the compressed file'),
      createWriteStream(outPath, { mode: 0o600 }),
    );
  } catch (e) {
    if (e instanceof ArchiveRefused) throw e;
    throw new ArchiveRefused('it is damaged or not a complete gzip file');
  }
}
