import { closeSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import dicomParser from 'dicom-parser';
import type { DataSet } from 'dicom-parser';
import { isVr, SNIFF_BYTES, sniffDicom, type DicomLayout } from './dicom-sniff.js';
import {
  countElements,
  headerTooLong,
  MAX_HEADER_BYTES,
  MAX_HEADER_ELEMENTS,
  strayUndefinedLength,
  tooManyElements,
  tooManyFragments,
} from './header-bounds.js';
import { fileIdentity, openScanFile } from './scan-file-open.js';
import { DEFLATED_LE, EXPLICIT_BE, EXPLICIT_LE, IMPLICIT_LE, transferSyntax } from './transfer-syntax.js';

export { SNIFF_BYTES, sniffDicom, type DicomLayout } from './dicom-sniff.js';

export const PIXEL_DATA = 'x7fe00010';

/**
 * A file that is DICOM but cannot be parsed. `message` is in our words, for people; `detail`
 * keeps the parser's own text for the log only (it means nothing to a clinician).
 */
export class DicomParseError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'DicomParseError';
  }
}

/** dicom-parser's messages, in words a clinician can act on. */
const PLAIN_WORDS: [RegExp, string][] = [
  [
    /buffer overrun|past end of buffer|eof encountered|maxPosition|outside the bounds|out of range/i,
    'its header is cut off or has wrong lengths',
  ],
  [/0002,0010/, 'its header does not say how it is encoded'],
  [/DICM prefix/, 'it is not a DICOM file'],
  [
    /larger than|too large|ERR_BUFFER_TOO_LARGE|maxOutputLength/i,
    'its compressed header unpacks to an absurd size',
  ],
  [
    /inflat|incorrect header check|unexpected end of file|invalid (block|distance|code)/i,
    'its compressed header cannot be unpacked',
  ],
];

/** Words for anything the parser says that the table above does not know. */
const UNKNOWN_WORDS = 'its header is not laid out as DICOM requires';

/** Any failure while reading a header, as a DicomParseError in words (the original text kept as detail). */
export function parseFailure(e: unknown): DicomParseError {
  if (e instanceof DicomParseError) return e;
  // dicom-parser throws strings, Errors, or { exception, dataSet }.
  const inner =
    typeof e === 'object' && e !== null && 'exception' in e ? (e as { exception: unknown }).exception : e;
  const text =
    inner instanceof Error
      ? `${(inner as NodeJS.ErrnoException).code ?? ''} ${inner.message}`
      : String(inner);
  const plain = PLAIN_WORDS.find(([re]) => re.test(text))?.[1];
  return new DicomParseError(plain ?? UNKNOWN_WORDS, text.trim());
}

/**
 * A deflated data set can be a zip bomb: a few kilobytes that inflate to gigabytes. dicom-parser
 * inflates without a limit, so it is given this inflater, which stops at a size bounded by the bytes
 * present: 200 times the deflated size (images rarely deflate below a half; a blank one to about a
 * hundredth), at least 64 MB and at most 1 GB.
 */
export function maxInflated(deflatedBytes: number): number {
  return Math.min(1024 ** 3, Math.max(64 * 1024 ** 2, 200 * deflatedBytes));
}

function boundedInflater(bytes: Uint8Array, position: number): Buffer {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const deflated = b.subarray(position);
  const inflated = inflateRawSync(deflated, { maxOutputLength: maxInflated(deflated.length) });
  // What was inflated is explicit VR little endian, and dicom-parser reads all of it.
  checkElementCount(inflated, 0, EXPLICIT_LE, false);
  return Buffer.concat([b.subarray(0, position), inflated]);
}

/** Refuses, before dicom-parser makes an object of each, a data set with absurdly many elements. */
function checkElementCount(buf: Uint8Array, start: number, tsUid: string, untilPixelData: boolean): void {
  const c = countElements(buf, start, transferSyntax(tsUid), untilPixelData);
  if (c.stray) throw new DicomParseError(strayUndefinedLength(c.stray));
  if (c.elements + c.fragments > MAX_HEADER_ELEMENTS)
    throw new DicomParseError(c.fragments > c.elements ? tooManyFragments() : tooManyElements());
}

export interface ParsedDicom {
  dataSet: DataSet;
  layout: DicomLayout;
  /** The transfer syntax the data set was read with (from the meta header, or guessed). */
  transferSyntaxUid: string;
  /** True when the transfer syntax was not in the file and had to be inferred. */
  transferSyntaxGuessed: boolean;
  /** Where `dataSet.byteArray[0]` lies in the file; undefined when the data set was inflated. */
  fileOffset?: number;
}

/** The transfer syntax a data set without meta header is read with. */
const RAW_SYNTAX: Partial<Record<DicomLayout, string>> = {
  'raw-explicit': EXPLICIT_LE,
  'raw-implicit': IMPLICIT_LE,
  'raw-explicit-be': EXPLICIT_BE,
};

/**
 * Parses DICOM bytes of any supported layout. With `untilPixelData` parsing stops at the pixel
 * data element (its header is read, its value is not), so a leading chunk of the file suffices.
 * Pass a Buffer: deflated data sets are inflated with Node's zlib, which needs one.
 */
function parseDicomBytes(buf: Buffer, layout: DicomLayout, untilPixelData: boolean): ParsedDicom {
  const untilTag = untilPixelData ? PIXEL_DATA : undefined;
  const options = { ...(untilTag ? { untilTag } : {}), inflater: boundedInflater };
  try {
    const raw = RAW_SYNTAX[layout];
    if (raw) {
      checkElementCount(buf, 0, raw, untilPixelData);
      const dataSet = dicomParser.parseDicom(buf, { ...options, TransferSyntaxUID: raw });
      return { dataSet, layout, transferSyntaxUid: raw, transferSyntaxGuessed: true, fileOffset: 0 };
    }
    if (layout === 'raw-meta') return parseRawMeta(buf, untilTag);
    const meta = dicomParser.readPart10Header(buf);
    const tsElement = meta.elements.x00020010;
    if (!tsElement || tsElement.length === 0) {
      // The meta header lacks its transfer syntax: infer it from the first element of the data set.
      const start = (meta as DataSet & { position: number }).position;
      const ts = isVr(buf, start + 4) ? EXPLICIT_LE : IMPLICIT_LE;
      checkElementCount(buf, start, ts, untilPixelData);
      const dataSet = dicomParser.parseDicom(buf.subarray(start), { ...options, TransferSyntaxUID: ts });
      return { dataSet, layout, transferSyntaxUid: ts, transferSyntaxGuessed: true, fileOffset: start };
    }
    const metaTs = (meta.string('x00020010') ?? '').replace(/\0/g, '').trim();
    const start = (meta as DataSet & { position: number }).position;
    if (metaTs === IMPLICIT_LE && isVr(buf, start + 4)) {
      // The meta header says implicit VR, the data set names its VRs: pydicom reads such a file as
      // explicit VR, and so does this (dicom-parser would take the VR letters for lengths).
      checkElementCount(buf, start, EXPLICIT_LE, untilPixelData);
      const dataSet = dicomParser.parseDicom(buf.subarray(start), {
        ...options,
        TransferSyntaxUID: EXPLICIT_LE,
      });
      return {
        dataSet,
        layout,
        transferSyntaxUid: EXPLICIT_LE,
        transferSyntaxGuessed: true,
        fileOffset: start,
      };
    }
    // A deflated data set is counted as it is inflated (boundedInflater).
    if (metaTs !== DEFLATED_LE) checkElementCount(buf, start, metaTs, untilPixelData);
    const dataSet = dicomParser.parseDicom(buf, options);
    const ts = (dataSet.string('x00020010') ?? '').replace(/\0/g, '').trim();
    const parsed: ParsedDicom = { dataSet, layout, transferSyntaxUid: ts, transferSyntaxGuessed: false };
    if (ts !== DEFLATED_LE) parsed.fileOffset = 0;
    return parsed;
  } catch (e) {
    throw parseFailure(e);
  }
}

/** A meta header without preamble: read it as explicit LE, then the data set with the syntax it names. */
function parseRawMeta(buf: Buffer, untilTag: string | undefined): ParsedDicom {
  const metaOnly = dicomParser.parseDicom(buf, { TransferSyntaxUID: EXPLICIT_LE, untilTag: 'x00080000' });
  let end = 0;
  for (const el of Object.values(metaOnly.elements)) {
    if (el.tag < 'x00030000') end = Math.max(end, el.dataOffset + el.length);
  }
  const ts = (metaOnly.string('x00020010') ?? EXPLICIT_LE).replace(/\0/g, '').trim() || EXPLICIT_LE;
  if (ts === DEFLATED_LE)
    throw new DicomParseError('it is compressed as a whole without the file header that says so');
  checkElementCount(buf, end, ts, untilTag !== undefined);
  const dataSet = dicomParser.parseDicom(buf.subarray(end), {
    TransferSyntaxUID: ts,
    ...(untilTag ? { untilTag } : {}),
  });
  return {
    dataSet,
    layout: 'raw-meta',
    transferSyntaxUid: ts,
    transferSyntaxGuessed: false,
    fileOffset: end,
  };
}

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
    if (parsed && (whole || parsed.dataSet.elements[PIXEL_DATA]))
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
    const meta = dicomParser.readPart10Header(buf);
    return (meta.string('x00020010') ?? '').replace(/\0/g, '').trim() === DEFLATED_LE;
  } catch {
    return false;
  }
}
