// Zip archives made at test time, including hostile ones that no well-behaved zip writer produces.
import { createWriteStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { readFileSync } from 'node:fs';
import type { ArchiveLimits } from './archive-extract.js';
import { phantomFiles } from './scans.test-support.js';

/** Writes a zip of the given entries (name -> content or path on disk). */
export async function writeZip(
  out: string,
  /** `mode`: the entry's Unix mode (0o120777: a symbolic link, its data the target's name). */
  entries: { name: string; data?: Buffer; file?: string; mode?: number }[],
): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const e of entries) {
    // Slices are stored, not deflated: the tests are about reading zips, not about time spent compressing.
    if (e.file) zip.addFile(e.file, e.name, { compress: false });
    else zip.addBuffer(e.data ?? Buffer.alloc(0), e.name, e.mode !== undefined ? { mode: e.mode } : {});
  }
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(out));
}

/** Renames an entry in place (same length), in both its local header and the central directory. */
export async function renameEntry(zipPath: string, from: string, to: string): Promise<void> {
  if (from.length !== to.length) throw new Error('names must have the same length');
  const bytes = await readFile(zipPath);
  let at = 0;
  let count = 0;
  for (;;) {
    at = bytes.indexOf(from, at, 'utf8');
    if (at < 0) break;
    bytes.write(to, at, 'utf8');
    at += from.length;
    count++;
  }
  if (count === 0) throw new Error(`entry ${from} not found`);
  await writeFile(zipPath, bytes);
}

/** Sets the declared uncompressed size of every central-directory entry (what unzippers trust). */
export async function declareSizes(zipPath: string, size: number): Promise<void> {
  const bytes = await readFile(zipPath);
  for (
    let at = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    at >= 0;
    at = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 4)
  ) {
    bytes.writeUInt32LE(size, at + 24);
  }
  await writeFile(zipPath, bytes);
}

/** Every entry of a zip in stored order, uncompressed, and whether it was stored compressed. */
export function zipEntries(bytes: Buffer): Promise<{ name: string; data: Buffer; compressed: boolean }[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      const out: { name: string; data: Buffer; compressed: boolean }[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.push({
              name: entry.fileName,
              data: Buffer.concat(chunks),
              compressed: entry.compressionMethod !== 0,
            });
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** Every entry of a zip, uncompressed, by name. */
export async function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  return new Map((await zipEntries(bytes)).map((e) => [e.name, e.data]));
}

/** Limits that refuse, past 1 MB, anything unpacking to more than 20 times its packed size. */
export const STRICT: ArchiveLimits = { maxBytes: 1e12, maxEntries: 1000, maxRatio: 20, ratioFreeBytes: 1e6 };

/**
 * `size` bytes that start as a real slice does (preamble, DICM, meta header) and go on as zeros:
 * DICOM by its first bytes, a bomb by its size.
 */
export function dicomThenZeros(size: number): Buffer {
  const out = Buffer.alloc(size);
  readFileSync(phantomFiles()[0]!).copy(out, 0, 0, 1024);
  return out;
}
