import { closeSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { dicomParserLib } from './dicom-parser-lib.js';
import { SNIFF_BYTES, sniffDicom, type DicomLayout } from './dicom-sniff.js';
import { headerTooLong, MAX_HEADER_BYTES } from './header-bounds.js';
import {
  DicomParseError,
  parseDicomBytes,
  parseFailure,
  PIXEL_DATA,
  type ParsedDicom,
} from './dicom-parse.js';
import { fileIdentity, openScanFile } from './scan-file-open.js';
import { DEFLATED_LE } from './transfer-syntax.js';

export { SNIFF_BYTES, sniffDicom, type DicomLayout } from './dicom-sniff.js';
export {
  DicomParseError,
  DropOverBudget,
  maxInflated,
  parseFailure,
  PIXEL_DATA,
  type ParsedDicom,
} from './dicom-parse.js';

export interface HeaderRead {
  parsed: ParsedDicom;
  fileSize: number;
  /** True when the whole file was read (small files, deflated ones, files without pixel data). */
  wholeFile: boolean;
  /** Which file was read (ByteSource.identity). */
  fileId: string;
}

/** A file whose content is not DICOM, with its first bytes for telling what it is instead. */
export interface NotDicom {
  notDicom: true;
  head: Buffer;
  fileSize: number;
}

/** First chunk read per file; the Philips CT headers in the fixtures are about 7.6 KB. */
export const FIRST_CHUNK = 16 * 1024;

/** Where header bytes come from: a file (intake) or memory (the fuzz test and bench). */
export interface ByteSource {
  /** Copies up to `length` bytes from `position` into `into` at `at`; returns how many (0 at the end). */
  read(into: Buffer, at: number, length: number, position: number): number;
  /**
   * The size in bytes: from the file's stat when identity() was asked; else, when `end` (where the
   * caller expects the file to end) is confirmed by one small read there, from that read.
   */
  size(end?: number): number;
  /** Which file this is (fileIdentity; '' in memory): intake keeps it, packaging checks it. */
  identity(): string;
}

export function bufferSource(bytes: Uint8Array): ByteSource {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    size: () => b.length,
    read: (into, at, length, position) => b.copy(into, at, position, Math.min(b.length, position + length)),
    identity: () => '',
  };
}

/**
 * The `size` bytes of `src` from `offset` as a source of their own (a file inside another, such as a
 * stored zip entry). A read that `src` cannot fill within the window throws `short`'s error: the
 * window's size is what its directory said, so a file ending first is cut off.
 */
export function windowSource(src: ByteSource, offset: number, size: number, short: () => Error): ByteSource {
  return {
    size: () => size,
    identity: () => '',
    read: (into, at, length, position) => {
      const n = Math.max(0, Math.min(length, size - position));
      for (let done = 0; done < n;) {
        const got = src.read(into, at + done, n - done, offset + position + done);
        if (got === 0) throw short();
        done += got;
      }
      return n;
    },
  };
}

/** Bytes read where a file is expected to end; fewer come back only when it ends there. */
const PROBE_BYTES = 64;
const probe = Buffer.allocUnsafeSlow(PROBE_BYTES);

/** An open file as a ByteSource. */
class FileSource implements ByteSource {
  /** The file's stat, once identity() asked for it: it then gives the size too. */
  private stat: Stats | undefined;
  constructor(private readonly fd: number) {}

  identity(): string {
    this.stat ??= fstatSync(this.fd);
    return fileIdentity(this.stat);
  }

  read(into: Buffer, at: number, length: number, position: number): number {
    return readSync(this.fd, into, at, length, position);
  }

  size(end?: number): number {
    if (this.stat) return this.stat.size;
    if (end !== undefined && end > 0) {
      // A read that starts before the expected end and stops short of the probe's length has
      // found the end of the file (reads of a regular file stop short only there).
      const n = readSync(this.fd, probe, 0, PROBE_BYTES, end - 1);
      if (n > 0 && n < PROBE_BYTES) return end - 1 + n;
    }
    this.stat = fstatSync(this.fd);
    return this.stat.size;
  }
}

/**
 * Reads and parses a file's header only: the first chunk, growing it (x4) until the pixel data
 * element is reached or the file ends. Returns NotDicom when the content is not DICOM. Throws
 * DicomParseError when it is DICOM but cannot be parsed (corrupt or truncated).
 *
 * Synchronous on purpose: a few direct system calls per file are several times faster than as many
 * round trips through libuv's thread pool. Its work is bounded only by the file: intake runs it (via
 * classifyFile) on worker threads, never on the app's main thread (see header-scan.ts).
 */
export function readDicomHeaderSync(path: string): HeaderRead | NotDicom {
  return withFileSync(path, 'r', readDicomHeader);
}

/** Runs `read` on a file opened with `flags`; its size is asked of the system only when needed. */
export function withFileSync<T>(path: string, flags: string | number, read: (src: ByteSource) => T): T {
  const fd = openSync(path, flags);
  try {
    return read(new FileSource(fd));
  } finally {
    closeSync(fd);
  }
}

/**
 * readDicomHeaderSync on any byte source. Every buffer it allocates is bounded by `src.size` and by
 * MAX_HEADER_BYTES: a header that runs on past that is refused, not read into memory whole.
 */
export function readDicomHeader(src: ByteSource): HeaderRead | NotDicom {
  let fileSize = src.size();
  let buf = Buffer.allocUnsafe(Math.min(fileSize, FIRST_CHUNK));
  let filled = 0;
  const fill = (to: number): void => {
    if (to > buf.length) {
      const bigger = Buffer.allocUnsafe(to);
      buf.copy(bigger, 0, 0, filled);
      buf = bigger;
    }
    while (filled < to) {
      const n = src.read(buf, filled, to - filled, filled);
      if (n === 0) {
        fileSize = filled; // the file is shorter than it was: take what there is
        break;
      }
      filled += n;
    }
  };
  fill(buf.length);
  let view = buf.subarray(0, filled);
  const layout = sniffDicom(view, fileSize);
  if (!layout) return { notDicom: true, head: view.subarray(0, SNIFF_BYTES), fileSize };
  if (layout === 'part10' && isDeflated(view)) {
    // A deflated data set can only be inflated whole: a real one is small (deflate is rare in imaging).
    if (fileSize > MAX_HEADER_BYTES)
      throw new DicomParseError(
        `it is compressed as a whole (deflated) and is over ${MAX_HEADER_BYTES / 1024 ** 2} MB: no scan is sent that way`,
      );
    fill(fileSize);
    view = buf.subarray(0, filled);
  }
  for (;;) {
    const whole = filled >= fileSize;
    let parsed: ParsedDicom | undefined;
    try {
      parsed = parseDicomBytes(view, layout, true);
    } catch (e) {
      if (whole) throw parseFailure(e);
    }
    const px = parsed?.dataSet.elements[PIXEL_DATA];
    // The item header after an encapsulated pixel data's own says how many frames its offset table
    // lists (boundedFrameCount): read on for it, unless that would pass the header's bound.
    const tableUnread =
      px?.hadUndefinedLength === true && (parsed!.fileOffset ?? 0) + px.dataOffset + 8 > filled;
    if (parsed && (whole || (px && (!tableUnread || filled >= MAX_HEADER_BYTES))))
      return { parsed, fileSize, wholeFile: whole, fileId: src.identity() };
    if (filled >= MAX_HEADER_BYTES) throw new DicomParseError(headerTooLong());
    fill(Math.min(fileSize, MAX_HEADER_BYTES, Math.max(filled * 4, FIRST_CHUNK)));
    view = buf.subarray(0, filled);
  }
}

/** Reads and parses a whole file (pixel data included). Throws DicomParseError when not DICOM or unreadable. */
/** `expected`: which file intake read there (openScanFile); it must still be that one. */
export async function readDicomFile(
  path: string,
  expected?: string,
): Promise<ParsedDicom & { buffer: Buffer }> {
  const fh = await openScanFile(path, expected);
  let buffer: Buffer;
  try {
    buffer = await fh.readFile();
  } finally {
    await fh.close();
  }
  return parseDicomFile(buffer);
}

/** A whole file's bytes parsed, pixel data included (read from disk or held in memory). */
export function parseDicomFile(buffer: Buffer): ParsedDicom & { buffer: Buffer } {
  const layout = sniffDicom(buffer.subarray(0, SNIFF_BYTES), buffer.length);
  if (!layout) throw new DicomParseError('it is not a DICOM file');
  try {
    return { ...parseDicomBytes(buffer, layout, false), buffer };
  } catch (e) {
    // Say "cut off" rather than "buffer overrun" when the header is whole and the pixels are short.
    const short = missingPixelBytes(buffer, layout);
    if (short > 0)
      throw new DicomParseError(`the file ends ${short} bytes before its image data does; it was cut off`);
    throw e;
  }
}

/** How many bytes of (uncompressed) pixel data are missing at the end of the file; 0 when none or unknown. */
function missingPixelBytes(buffer: Buffer, layout: DicomLayout): number {
  try {
    const { dataSet } = parseDicomBytes(buffer, layout, true);
    const px = dataSet.elements[PIXEL_DATA];
    if (!px || px.hadUndefinedLength) return 0;
    return Math.max(0, px.dataOffset + px.length - dataSet.byteArray.length);
  } catch {
    return 0;
  }
}

/** Reads the meta header of a Part 10 chunk to see whether the data set is deflated. */
function isDeflated(buf: Buffer): boolean {
  try {
    const meta = dicomParserLib().readPart10Header(buf);
    return (meta.string('x00020010') ?? '').replace(/\0/g, '').trim() === DEFLATED_LE;
  } catch {
    return false;
  }
}
