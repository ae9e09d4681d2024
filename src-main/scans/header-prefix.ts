import { constants } from 'node:fs';
import {
  FIRST_CHUNK,
  SNIFF_BYTES,
  sniffDicom,
  type ByteSource,
  type HeaderRead,
  type NotDicom,
  withFileSync,
} from './dicom-file.js';
import { readHeaderTags } from './header-tag-reader.js';

/** Bytes of a header this thread keeps a buffer for between files; larger ones get a buffer of their own. */
const KEEP_BYTES = 1024 * 1024;

/**
 * One buffer per thread for the first bytes of each file, reused: a drop of thousands of files then
 * costs no garbage. Nothing read from it outlives the classification of its file (headerFields copies
 * what it keeps into strings and numbers).
 */
let scratch = Buffer.allocUnsafeSlow(FIRST_CHUNK);

/**
 * A file's header by the tag-only reader (header-tag-reader.ts), reading at most `limit` bytes: the
 * first 16 KB, grown four-fold while the header goes on. 'defer' when the file needs dicom-parser
 * (readDicomHeader) or more than `limit` bytes; NotDicom when its content is not DICOM.
 */
export function readHeaderPrefix(src: ByteSource, limit: number): HeaderRead | NotDicom | 'defer' {
  if (scratch.length > KEEP_BYTES) scratch = Buffer.allocUnsafeSlow(FIRST_CHUNK);
  const size = src.size;
  let filled = 0;
  let want = Math.min(size, FIRST_CHUNK);
  for (let first = true; ; first = false) {
    if (want > scratch.length) {
      const bigger = Buffer.allocUnsafeSlow(want);
      scratch.copy(bigger, 0, 0, filled);
      scratch = bigger;
    }
    while (filled < want) {
      const n = src.read(scratch, filled, want - filled, filled);
      // The file shrank since it was measured: readDicomHeader knows what to make of that.
      if (n === 0) return 'defer';
      filled += n;
    }
    const view = scratch.subarray(0, filled);
    const whole = filled >= size;
    if (first) {
      const layout = sniffDicom(view, size);
      if (!layout)
        return { notDicom: true, head: Buffer.from(view.subarray(0, SNIFF_BYTES)), fileSize: size };
      if (layout !== 'part10') return 'defer';
    }
    const r = readHeaderTags(view, whole);
    if (r === 'odd') return 'defer';
    if (r !== 'more') return { parsed: r, fileSize: size, wholeFile: whole };
    if (whole || filled >= limit) return 'defer';
    want = Math.min(size, limit, filled * 4);
  }
}

/**
 * Runs `read` on a file opened for reading; four system calls in all with the read. Non-blocking, as
 * this may be the app's main thread: a file swapped for a pipe after the folder was listed fails
 * to read (listed as unreadable) instead of waiting for a writer. No effect on regular files.
 */
export function withFile<T>(path: string, read: (src: ByteSource) => T): T {
  return withFileSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0), read);
}
