import { closeSync, readSync } from 'node:fs';
import { openScanFileSync } from './scan-file-open.js';

/**
 * A file that lies inside another one, byte for byte: a stored (uncompressed) zip entry. The local
 * engine reads an upload's slices where they lie in the zip instead of reading the whole zip into
 * memory first; only what it reads is read, and the zip is never held twice.
 *
 * Only node:fs here: the mesh workers read planes through it (plane-copy.ts).
 */
export interface FileRegion {
  /** The file that holds it. */
  file: string;
  /** Where it starts in that file. */
  offset: number;
  /** Its length in bytes. */
  size: number;
}

/** Why a region could not be read whole: the file holding it is shorter than its directory said. */
export class RegionReadError extends Error {
  override name = 'RegionReadError';
}

/**
 * Reads `length` bytes from `from` within the region into `into` at `at`, through an open `fd` of
 * the region's file. Throws RegionReadError when the file ends first (it was cut off or replaced).
 */
export function readRegionInto(
  fd: number,
  r: FileRegion,
  from: number,
  length: number,
  into: Uint8Array,
  at = 0,
): void {
  if (from < 0 || length < 0 || from + length > r.size)
    throw new RangeError(`bytes ${from}..${from + length} lie outside a region of ${r.size}`);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, into, at + done, length - done, r.offset + from + done);
    if (n === 0)
      throw new RegionReadError(
        `the file ends ${length - done} bytes before the part of it that was to be read`,
      );
    done += n;
  }
}

/** The region's bytes, from `from` for `length`, in a buffer of their own. */
export function readRegion(r: FileRegion, from = 0, length = r.size - from): Buffer {
  const out = Buffer.allocUnsafe(length);
  const fd = openScanFileSync(r.file);
  try {
    readRegionInto(fd, r, from, length, out);
  } finally {
    closeSync(fd);
  }
  return out;
}
