import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import yazl from 'yazl';
import { AppError } from '../../src-shared/errors.js';
import { readDicomFile } from './dicom-file.js';
import { burnedInFactsOf, burnedInReason } from './burned-in.js';
import { UidMapper, deidentifyDicom } from './deidentify.js';

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
 * Packs a series for upload, streaming: slice files become one zip (entries named by their order
 * along the slice normal, so no original file name, which may carry a patient's name, travels),
 * a multi-frame file goes as one .dcm; gzip adds .gz. Only one slice is in memory at a time.
 * The file appears under its final name only when complete.
 */
export async function packageSeries(
  files: { path: string; size: number }[],
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
  const source = async (path: string): Promise<Readable> => {
    if (!opts.deidentify) {
      const file = createReadStream(path);
      const counted = counter(progress);
      file.on('error', (e) => counted.destroy(e)); // pipe() does not pass errors on
      return file.pipe(counted);
    }
    const parsed = await readDicomFile(path);
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
    const out = deidentifyDicom(parsed, uids);
    progress(parsed.buffer.length);
    return Readable.from([out]);
  };

  const pipeOpts = opts.signal ? { signal: opts.signal } : {};
  const writeOut = (src: Readable): Promise<void> =>
    opts.gzip
      ? pipeline(src, createGzip({ level: 6 }), createWriteStream(partPath), pipeOpts)
      : pipeline(src, createWriteStream(partPath), pipeOpts);
  try {
    if (multiFrame) {
      await writeOut(await source(files[0]!.path));
    } else {
      const zip = new yazl.ZipFile();
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
        mtime: new Date(Date.UTC(2000, 0, 1)),
        mode: 0o100644,
      };
      files.forEach((f, k) => {
        zip.addReadStreamLazy(`slice-${String(k + 1).padStart(5, '0')}.dcm`, entryOptions, (cb) => {
          source(f.path).then((stream) => {
            // yazl does not watch its input streams for errors: a vanished file would hang it.
            stream.on('error', fail);
            cb(null, stream);
          }, fail);
        });
      });
      zip.end();
      await writeOut(output);
    }
    await rename(partPath, finalPath);
  } catch (e) {
    await rm(partPath, { force: true });
    if (opts.signal?.aborted) throw new AppError('canceled', 'Packaging the scan was canceled.');
    if (e instanceof AppError) throw e;
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT' && err.path) {
      throw new AppError(
        'bad-input',
        `A file of the scan is no longer where it was (${basename(err.path)}).`,
        {
          action: 'Put the scan back where it was, or add it again.',
          cause: e,
        },
      );
    }
    if (err.code === 'ENOSPC') {
      throw new AppError('bad-input', 'There is not enough disk space to package the scan for upload.', {
        action: 'Free some disk space and try again.',
      });
    }
    throw new AppError('bad-input', `The scan could not be packaged for upload: ${err.message}.`, {
      action: 'Check that the scan files are still there and readable, then try again.',
      cause: e,
    });
  }
  const bytes = (await stat(finalPath)).size;
  return { path: finalPath, extension, bytes };
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
