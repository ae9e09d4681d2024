import { createReadStream, createWriteStream } from 'node:fs';
import { rename, unlink } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { AppError } from '../../src-shared/errors.js';
import { PRIVATE_FILE_MODE } from '../platform/private-files.js';
import { Transient } from './service-errors.js';

/** Most times its coded size a decoded download may be, and at least this many bytes. */
const MAX_DECODED_RATIO = 100;
const MIN_DECODED_LIMIT = 1024 ** 3;

/**
 * Decodes the file at `path`, coded as `coding` (gzip, deflate or br), in place; returns its decoded
 * size. A coding not known, or bytes that do not decode, refuse the download in words (a damaged
 * answer is worth another download: Transient).
 */
export async function decodeInPlace(path: string, coding: string, codedBytes: number): Promise<number> {
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? createGunzip()
      : coding === 'deflate'
        ? createInflate()
        : coding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decoder)
    throw new AppError(
      'service',
      `The storage sent the mesh coded as "${coding}", which scan2mesh cannot decode.`,
      { action: 'Tell the service operator: the meshes should be sent as they are, or gzip-coded.' },
    );
  const limit = Math.max(MIN_DECODED_LIMIT, MAX_DECODED_RATIO * codedBytes);
  let decoded = 0;
  const bounded = new Transform({
    transform(chunk: Buffer, _enc, done) {
      decoded += chunk.length;
      done(decoded > limit ? new Error(`decodes to more than ${limit} bytes`) : null, chunk);
    },
  });
  const out = `${path}.decoded`;
  try {
    await pipeline(
      createReadStream(path),
      decoder,
      bounded,
      createWriteStream(out, { mode: PRIVATE_FILE_MODE }),
    );
    await rename(out, path);
    return decoded;
  } catch (e) {
    await unlink(out).catch(() => {});
    if (e instanceof AppError) throw e;
    throw new Transient(
      new AppError(
        'service',
        `The mesh the storage sent ${coding}-coded does not decode (${(e as Error).message}).`,
        {
          retryable: true,
        },
      ),
    );
  }
}
