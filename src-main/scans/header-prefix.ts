import { constants } from 'node:fs';
import {
  FIRST_CHUNK,
  SNIFF_BYTES,
  sniffDicom,
  type ByteSource,
  type NotDicom,
  withFileSync,
} from './dicom-file.js';
import { scanHeader } from './header-tag-reader.js';
import { TagTable } from './header-values.js';

/**
 * One buffer per thread for the first bytes of each file, and one table for where its tags lie,
 * both reused: a drop of thousands of files then costs no garbage (the buffer is the size of the first
 * read; one grown for a longer header is dropped at the next file). Nothing read from them outlives
 * the classification of its file (the header fields copy what they keep into strings and numbers).
 */
let scratch = Buffer.allocUnsafeSlow(FIRST_CHUNK);
const table = new TagTable();

/** Reads are made in whole pages of the page cache. */
const PAGE = 4096;
/** Room over the last header's length for a longer text or an extra element in the next file's. */
const SLACK = 512;
/** The most a first read asks for: a file after one with a header of megabytes reads a few pages. */
const MAX_FIRST_READ = 4 * FIRST_CHUNK;
/**
 * How many bytes of the next file the first read asks for: what the last header read here needed
 * (up to its pixel data element, plus SLACK), in whole pages; FIRST_CHUNK before any. The files of a
 * drop nearly always share one layout, so one read still holds the whole header, and a CT header of
 * 2 or 8 KB no longer copies 16 KB of pixels no one looks at (the reads are about a fifth of a cold
 * drop's time per file). A header longer than that costs one more read (the four-fold growth
 * below). The size changes only when a header needs more or half as much, so files a few bytes apart
 * do not swap buffers back and forth.
 */
let firstRead = FIRST_CHUNK;

function learnHeaderLength(bytes: number): void {
  const needed = Math.ceil((bytes + SLACK) / PAGE) * PAGE;
  if (needed > firstRead || needed * 2 <= firstRead) firstRead = Math.min(needed, MAX_FIRST_READ);
}

/** A header the tag-only reader read: its tags (valid until this thread reads the next file). */
export interface TagHeader {
  tags: TagTable;
  fileSize: number;
  /** Which file was read (ByteSource.identity). */
  fileId: string;
}

const isPart10 = (b: Buffer): boolean =>
  b.length >= 132 && b[128] === 0x44 && b[129] === 0x49 && b[130] === 0x43 && b[131] === 0x4d;

/**
 * A file's header by the tag-only reader (header-tag-reader.ts), reading at most `limit` bytes: the
 * first 16 KB, grown four-fold while the header goes on. 'defer' when the file needs dicom-parser
 * (readDicomHeader) or more than `limit` bytes; NotDicom when its content is not DICOM.
 *
 * The file's size is learnt from the reads when they reach its end, else confirmed where the pixel
 * data says the file ends: a stat only when neither tells.
 */
export function readHeaderPrefix(src: ByteSource, limit: number): TagHeader | NotDicom | 'defer' {
  // A buffer the size of the first read: when the read fills it, as for most files, the buffer
  // itself is the header's view (no view is made per file).
  if (scratch.length !== firstRead) scratch = Buffer.allocUnsafeSlow(firstRead);
  let filled = 0;
  /** The size, once a read has met the end of the file. */
  let size = -1;
  let want = Math.min(firstRead, limit);
  for (let first = true; ; first = false) {
    if (want > scratch.length) {
      const bigger = Buffer.allocUnsafeSlow(want);
      scratch.copy(bigger, 0, 0, filled);
      scratch = bigger;
    }
    while (filled < want) {
      const n = src.read(scratch, filled, want - filled, filled);
      if (n === 0) {
        size = filled;
        break;
      }
      filled += n;
    }
    // The whole buffer when the read filled it (as for most files): no view made per file.
    const view = filled === scratch.length ? scratch : scratch.subarray(0, filled);
    const whole = size >= 0;
    if (first && !isPart10(view)) {
      const fileSize = whole ? size : src.size();
      if (!sniffDicom(view, fileSize))
        return { notDicom: true, head: Buffer.from(view.subarray(0, SNIFF_BYTES)), fileSize };
      return 'defer';
    }
    const r = scanHeader(view, whole, table);
    if (r === 'odd') return 'defer';
    // The item header after an encapsulated pixel data's own says how many frames its offset table
    // lists (boundedFrameCount): read on for it when the read stopped short of it.
    if (r === 'ok' && !(table.pixelEncapsulated && table.pixelOffset + 8 > filled && !whole)) {
      if (table.pixelOffset >= 0) learnHeaderLength(table.pixelOffset);
      const end =
        table.pixelOffset >= 0 && !table.pixelEncapsulated
          ? table.pixelOffset + table.pixelLength
          : undefined;
      // The stat that says which file this is gives its size too (no read at its end then).
      const fileId = src.identity();
      return { tags: table, fileSize: whole ? size : src.size(end), fileId };
    }
    if (whole || filled >= limit) return 'defer';
    want = Math.min(limit, filled * 4);
  }
}

/**
 * Runs `read` on a file opened for reading. Non-blocking, as this may be the app's main thread: a
 * file swapped for a pipe after the folder was listed fails to read (listed as unreadable) instead
 * of waiting for a writer. No effect on regular files.
 */
export function withFile<T>(path: string, read: (src: ByteSource) => T): T {
  return withFileSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0), read);
}
