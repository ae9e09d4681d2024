import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, posix, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import yauzl from 'yauzl';
import { AppError } from '../../../src-shared/errors.js';
import type { CbctExtension } from './plan.js';

/** More than any scan holds; a zip that inflates beyond it is a zip bomb or not a scan. */
const MAX_UNPACKED_BYTES = 8 * 1024 ** 3;
const MAX_ENTRIES = 20_000;

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
 * streams, a .zip is extracted into `workDir` with yauzl (entries named with `..`, absolute paths or
 * drive letters are refused rather than written outside the folder).
 */
export async function unpackInput(
  input: { path: string; extension: string },
  workDir: string,
  signal?: AbortSignal,
): Promise<string[]> {
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
  if (ext.startsWith('.zip')) return unzip(path, join(workDir, 'slices'), limit, signal);
  return [path];
}

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((res, rej) => {
    yauzl.open(path, { lazyEntries: true, autoClose: true }, (err, zip) => {
      if (err || !zip)
        rej(badZip(`The input is not a readable zip file (${err?.message ?? 'no archive'}).`, err));
      else res(zip);
    });
  });
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
  signal?: AbortSignal,
): Promise<string[]> {
  const zip = await openZip(path);
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
          await mkdir(dirname(target), { recursive: true });
          const stream = await new Promise<NodeJS.ReadableStream>((ok, ko) =>
            zip.openReadStream(entry, (err, s) => (err || !s ? ko(err ?? new Error('no stream')) : ok(s))),
          );
          await pipeline(stream, byteLimit(limit, 'The zip file'), createWriteStream(target));
          files.push(target);
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
