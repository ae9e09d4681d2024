import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type * as Yazl from 'yazl';
import { lazyLibrary } from '../platform/lazy-library.js';
import { AppError } from '../../src-shared/errors.js';
import { readDicomFile } from './dicom-file.js';
import { prepareCodec } from './codecs.js';
import { openScanFile } from './scan-file-open.js';
import { burnedInFactsOf, burnedInReason } from './burned-in.js';
import { UidMapper, deidentifyDicom } from './deidentify.js';
import { fitsPlainZip, ZipWriter } from './zip-writer.js';
import { SpareBuffers } from '../platform/spare-buffers.js';
import { PRIVATE_FILE_MODE } from '../platform/private-files.js';
import { writeFully } from '../platform/write-fully.js';

export interface PackageOptions {
  deidentify: boolean;
  /**
   * The user has seen that the series may show patient data in its pixels (burned-in
   * annotation) and sends it de-identified anyway; without it such a series is refused.
   */
  acceptBurnedIn?: boolean;
  gzip?: boolean;
  /**
   * Deflate the zip's entries (the default). Off for the local engine: on loopback the bytes cost
   * nothing to move, while deflating 40 MB of slices costs seconds of CPU that the engine then pays
   * again to inflate. Remote services keep deflate: there the upload is the slow part.
   */
  compress?: boolean;
  outDir: string;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface PackagedScan {
  path: string;
  /** '.zip', '.dcm', '.zip.gz' or '.dcm.gz': what the job spec declares for the cbct input. */
  extension: string;
  bytes: number;
}

/**
 * Packs a series for upload: slice files become one zip (entries named by their order along the
 * slice normal, so no original file name, which may carry a patient's name, travels), a multi-frame
 * file goes as one .dcm; gzip adds .gz. Slices are read whole, one at a time, into a plain zip
 * (zip-writer.ts): the queue packs many small series, and a stream per slice cost more than the
 * bytes. A package that may need zip64, and gzip, go through yazl and zlib streams; a multi-frame
 * file sent as it is is copied by the system. The file is made readable by the user only (written
 * so from its first byte, a copy right after it is made: `outDir` should be private) and appears
 * under its final name only when complete.
 */
/**
 * A file to send: where it is, its size and, from intake, which file it was (fileIdentity): a file
 * that is no longer that one is refused, not sent (scan-file-open.ts).
 */
export interface PackageFile {
  path: string;
  size: number;
  id?: string;
}

export async function packageSeries(
  files: PackageFile[],
  multiFrame: boolean,
  baseName: string,
  opts: PackageOptions,
): Promise<PackagedScan> {
  if (files.length === 0) throw new AppError('bad-input', 'The series has no files to package.');
  const extension = (multiFrame ? '.dcm' : '.zip') + (opts.gzip ? '.gz' : '');
  await mkdir(opts.outDir, { recursive: true });
  const finalPath = join(opts.outDir, `${baseName}${extension}`);
  const partPath = `${finalPath}.part`;
  const total = files.reduce((s, f) => s + f.size, 0);
  let done = 0;
  const progress = (n: number): void => {
    done += n;
    opts.onProgress?.(Math.min(done, total), total);
  };
  const uids = new UidMapper();
  // Each file's place along the stack (files come in that order): its Instance Number once sent.
  const placeOf = new Map(files.map((f, k) => [f, k + 1]));
  const deidentified = async (file: PackageFile): Promise<Buffer> => {
    const parsed = await readDicomFile(file.path, file.id);
    // Compressed frames are decoded to be written again (deid-pixels.ts): their codec loaded first.
    await prepareCodec(parsed.transferSyntaxUid);
    // Removing attributes cannot clean text burned into the pixels: the user has to accept that.
    const burnedIn = opts.acceptBurnedIn ? undefined : burnedInReason(burnedInFactsOf(parsed.dataSet));
    if (burnedIn) {
      throw new AppError(
        'burned-in-annotation',
        `This series was not sent de-identified: ${burnedIn}, and de-identification cannot remove text from the images.`,
        {
          action:
            'Look at the images. If they show no name, date or other patient data, accept the burned-in annotation (the checkbox at Submit, or --accept-burned-in) and submit again.',
        },
      );
    }
    const out = deidentifyDicom(parsed, uids, placeOf.get(file) ?? 1);
    progress(parsed.buffer.length);
    return out;
  };
  // Slices read as they are go through two buffers, filled again in turn (the next slice is read
  // while the last one is written, writeZip), taken from and handed back to the spares.
  const scratch: (Buffer | undefined)[] = [undefined, undefined];
  let turn = 0;
  /** One file as it goes into the package: as it is (in a scratch buffer), or de-identified (its own). */
  const bytesOf = async (file: PackageFile): Promise<Buffer> => {
    opts.signal?.throwIfAborted();
    if (opts.deidentify) return deidentified(file);
    turn ^= 1;
    let into = scratch[turn];
    if (!into || into.length <= file.size) {
      if (into) spareScratch.give(into);
      into = scratch[turn] = spareScratch.take(file.size + 1);
    }
    const data = await readWhole(file, into);
    progress(data.length);
    return data;
  };

  const names = files.map((f, k) => entryName(k, opts.deidentify ? undefined : f.path));
  let bytes: number;
  try {
    if (!opts.gzip && !multiFrame && fitsPlainZip(files.length, total)) {
      bytes = await writeZip(
        files,
        names,
        partPath,
        bytesOf,
        opts.compress !== false,
        !opts.deidentify,
        opts.signal,
      );
    } else if (!opts.gzip && multiFrame && opts.deidentify) {
      const data = await bytesOf(files[0]!);
      await writeWhole(partPath, data);
      bytes = data.length;
    } else if (!opts.gzip && multiFrame) {
      bytes = await copyPrivate(files[0]!, partPath, opts.signal);
      progress(bytes);
    } else {
      const source = async (sent: PackageFile): Promise<Readable> => {
        if (opts.deidentify) return Readable.from([await deidentified(sent)]);
        const file = (await openScanFile(sent.path, sent.id)).createReadStream();
        const counted = counter(progress);
        file.on('error', (e) => counted.destroy(e)); // pipe() does not pass errors on
        return file.pipe(counted);
      };
      await streamPackage(files, names, multiFrame, partPath, source, opts);
      bytes = (await stat(partPath)).size;
    }
    await rename(partPath, finalPath);
  } catch (e) {
    await rm(partPath, { force: true });
    throw packagingError(e, opts.signal);
  } finally {
    // Every read into them is over by now (writeZip waits for its read ahead, even on failure).
    for (const b of scratch) if (b) spareScratch.give(b);
  }
  return { path: finalPath, extension, bytes };
}

/**
 * Read buffers kept from one package to the next (a queue packs package after package, two at a
 * time): four, none over a few slices' worth of megabytes. They hold the last slices read until
 * the next package overwrites them: memory of this process only, never written anywhere (the
 * system's page cache holds the same files anyway).
 */
const spareScratch = new SpareBuffers(4, 1 << 20, 8 << 20);
/** What a copy reads and writes at a time (copyPrivate). */
const COPY_BYTES = 1 << 20;

/**
 * A slice's name in the package: its place in the series, and, unless it is de-identified (a file's
 * name may hold the patient's), the name of the user's file, so that a message of the service that
 * names the slice names a file the user can find.
 */
function entryName(k: number, source: string | undefined): string {
  const place = `slice-${String(k + 1).padStart(5, '0')}`;
  if (source === undefined) return `${place}.dcm`;
  const name = basename(source)
    .replace(/\.dcm$/i, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(0, 64);
  return `${place}-${name}.dcm`;
}

async function writeZip(
  files: PackageFile[],
  names: string[],
  partPath: string,
  bytesOf: (file: PackageFile) => Promise<Buffer>,
  compress: boolean,
  /**
   * bytesOf fills the same two buffers in turn: each entry is written before the one after the next
   * is read.
   */
  reused: boolean,
  signal: AbortSignal | undefined,
): Promise<number> {
  const zip = await ZipWriter.create(partPath);
  // The next file is read while this one is added: its read and this entry's checksum and write
  // run side by side (the system's threads, and this one).
  const readAhead = (k: number): Promise<Buffer> | undefined => {
    if (k >= files.length) return undefined;
    const read = bytesOf(files[k]!);
    // Handled here, so that a failure while the entry before is still being added is no unhandled
    // rejection; the loop sees it when it comes to this file.
    read.catch(() => {});
    return read;
  };
  let next: Promise<Buffer> | undefined;
  try {
    next = readAhead(0);
    for (let k = 0; k < files.length; k++) {
      const data = (await next) as Buffer;
      next = readAhead(k + 1);
      await zip.add(names[k]!, data, compress, reused);
    }
    signal?.throwIfAborted();
    return await zip.finish();
  } catch (e) {
    // Whatever the read ahead does, it is done before the file is closed and removed.
    await next?.catch(() => {});
    await zip.abort();
    throw e;
  }
}

/**
 * A copy of one file (a multi-frame scan sent as it is), private to the user, made through one kept
 * buffer of a megabyte or more (spareScratch): a file read stream went 64 KiB at a time, each read and
 * each write a trip to the thread pool, so a 500 MB cone-beam volume cost some 16,000 of them instead
 * of 1,000, and the stream's objects for each. The copy is made private (0600) before any byte is
 * in it: open() gives that mode to a file it makes, and the chmod covers a .part a killed run left.
 */
async function copyPrivate(from: PackageFile, to: string, signal: AbortSignal | undefined): Promise<number> {
  signal?.throwIfAborted();
  const source = await openScanFile(from.path, from.id);
  const buf = spareScratch.take(COPY_BYTES);
  try {
    const out = await open(to, 'w', PRIVATE_FILE_MODE);
    try {
      await out.chmod(PRIVATE_FILE_MODE);
      for (let at = 0; ;) {
        signal?.throwIfAborted();
        const { bytesRead } = await source.read(buf, 0, buf.length, at);
        if (bytesRead === 0) return at;
        await writeFully(out, buf, bytesRead, at);
        at += bytesRead;
      }
    } finally {
      await out.close();
    }
  } finally {
    spareScratch.give(buf);
    await source.close();
  }
}

/**
 * A file read whole, in one read when it still has the size intake saw (a byte more is asked, to
 * see that it has not grown); read again the usual way when it has. Read into `into` (at least a
 * byte longer than `size`) when given.
 */
async function readWhole({ path, size, id }: PackageFile, into?: Buffer): Promise<Buffer> {
  const file = await openScanFile(path, id);
  try {
    const buf = into ?? Buffer.allocUnsafe(size + 1);
    const { bytesRead } = await file.read(buf, 0, size + 1, 0);
    if (bytesRead <= size) return buf.subarray(0, bytesRead);
    return await file.readFile();
  } finally {
    await file.close();
  }
}

async function writeWhole(path: string, data: Buffer): Promise<void> {
  const file = await open(path, 'w', PRIVATE_FILE_MODE);
  try {
    await file.writeFile(data);
  } finally {
    await file.close();
  }
}

/** Only the streaming way needs it: most packages are plain zips (zip-writer.ts). */
const yazl = lazyLibrary<typeof Yazl>('yazl');

/** The streaming way: yazl (zip64 when needed) and zlib's gzip, one slice in memory at a time. */
async function streamPackage(
  files: PackageFile[],
  names: string[],
  multiFrame: boolean,
  partPath: string,
  source: (file: PackageFile) => Promise<Readable>,
  opts: PackageOptions,
): Promise<void> {
  const pipeOpts = opts.signal ? { signal: opts.signal } : {};
  const writeOut = (src: Readable): Promise<void> =>
    opts.gzip
      ? pipeline(
          src,
          createGzip({ level: 6 }),
          createWriteStream(partPath, { mode: PRIVATE_FILE_MODE }),
          pipeOpts,
        )
      : pipeline(src, createWriteStream(partPath, { mode: PRIVATE_FILE_MODE }), pipeOpts);
  if (multiFrame) return writeOut(await source(files[0]!));
  const zip = new (yazl().ZipFile)();
  const output = zip.outputStream as unknown as Readable;
  // A slice that fails to read or de-identify fails the package: the output is torn down,
  // which rejects the pipeline below.
  const fail = (e: unknown): void => {
    output.destroy(e instanceof Error ? e : new Error(String(e)));
  };
  zip.on('error', fail);
  // With gzip around it, entries are stored so that gzip sees (and compresses) the raw slices once.
  const entryOptions = {
    compress: !opts.gzip && opts.compress !== false,
    // The same stamp whatever the clock and time zone: yazl writes DOS times in local time, so the
    // date is made local midnight, and no UTC extra field (whose offset from it names the zone).
    mtime: new Date(2000, 0, 1),
    forceDosTimestamp: true,
    mode: 0o100644,
  };
  files.forEach((f, k) => {
    zip.addReadStreamLazy(names[k]!, entryOptions, (cb) => {
      source(f).then((stream) => {
        // yazl does not watch its input streams for errors: a vanished file would hang it.
        stream.on('error', fail);
        cb(null, stream);
      }, fail);
    });
  });
  zip.end();
  await writeOut(output);
}

/** A file in web mode's copy of a dropped scan (`<data>/staging/<drop id>/…`, transport/web-stage.ts). */
const STAGED = /[\\/]staging[\\/][0-9a-f-]{36}[\\/]/;

/** What went wrong while packaging, in words for the user. */
function packagingError(e: unknown, signal: AbortSignal | undefined): AppError {
  if (signal?.aborted) return new AppError('canceled', 'Packaging the scan was canceled.');
  if (e instanceof AppError) return e;
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'ENOENT' && err.path && STAGED.test(err.path)) {
    // Web mode's copy: the user never saw where it was, and cannot put it back.
    return new AppError(
      'bad-input',
      `The copy of this scan made when it was dropped onto the page is gone (${basename(err.path)}): the web mode it was dropped in has stopped, or the copy was removed with its job or by prune.`,
      { action: 'Drop the scan onto the page again and submit it.', cause: e },
    );
  }
  if (err.code === 'ENOENT' && err.path) {
    return new AppError(
      'bad-input',
      `A file of the scan is no longer where it was (${basename(err.path)}).`,
      {
        action: 'Put the scan back where it was, or add it again.',
        cause: e,
      },
    );
  }
  if (err.code === 'ENOSPC') {
    return new AppError('bad-input', 'There is not enough disk space to package the scan for upload.', {
      action: 'Free some disk space and try again.',
    });
  }
  // The system's text names the whole path; the user needs the file's name, not where it lies.
  const said = err.path ? err.message.split(err.path).join(basename(err.path)) : err.message;
  return new AppError('bad-input', `The scan could not be packaged for upload: ${said}.`, {
    action: 'Check that the scan files are still there and readable, then try again.',
    cause: e,
  });
}

function counter(onBytes: (n: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      onBytes(chunk.length);
      cb(null, chunk);
    },
  });
}

export function packageBaseName(seriesId: string, deidentified: boolean): string {
  return basename(`scan-${seriesId}${deidentified ? '-anon' : ''}`);
}
