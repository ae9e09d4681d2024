import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import dicomParser from 'dicom-parser';
import type { DataSet } from 'dicom-parser';
import { DEFLATED_LE, EXPLICIT_LE, IMPLICIT_LE } from './transfer-syntax.js';

/** How a file's bytes start, when they look like DICOM at all. */
export type DicomLayout =
  /** 128-byte preamble, "DICM", then the meta header. */
  | 'part10'
  /** No preamble: the meta group (0002,xxxx) comes first, explicit VR little endian. */
  | 'raw-meta'
  /** No preamble and no meta header: the data set itself, explicit VR little endian. */
  | 'raw-explicit'
  /** No preamble and no meta header: the data set itself, implicit VR little endian. */
  | 'raw-implicit';

export const PIXEL_DATA = 'x7fe00010';

/** Enough bytes to tell DICOM from anything else. */
export const SNIFF_BYTES = 512;

const VRS = new Set(
  'AE AS AT CS DA DS DT FL FD IS LO LT OB OD OF OL OV OW PN SH SL SQ SS ST SV TM UC UI UL UN UR US UT UV'.split(
    ' ',
  ),
);

function isVr(b: Uint8Array, at: number): boolean {
  const a = b[at];
  const c = b[at + 1];
  if (a === undefined || c === undefined) return false;
  return VRS.has(String.fromCharCode(a, c));
}

/**
 * Decides by content, never by name, whether bytes are DICOM and how they are laid out.
 * Files without preamble are accepted only when their first few elements have ascending tags,
 * valid VRs (or plausible implicit lengths) and lengths that fit the file, so random bytes, text
 * and images are not taken for DICOM.
 */
export function sniffDicom(head: Uint8Array, fileSize: number): DicomLayout | null {
  if (
    head.length >= 132 &&
    head[128] === 0x44 &&
    head[129] === 0x49 &&
    head[130] === 0x43 &&
    head[131] === 0x4d
  ) {
    return 'part10';
  }
  if (head.length < 8) return null;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const group = view.getUint16(0, true);
  // A bare data set starts with a low group: the meta group, identification (0008) or, rarely, patient (0010).
  if (group !== 0x0002 && group !== 0x0008 && group !== 0x0010) return null;
  const explicit = isVr(head, 4);
  if (walkElements(head, view, explicit, fileSize)) {
    if (group === 0x0002) return explicit ? 'raw-meta' : null;
    return explicit ? 'raw-explicit' : 'raw-implicit';
  }
  return null;
}

/** Walks up to four elements; true when they are well formed and in ascending tag order. */
function walkElements(head: Uint8Array, view: DataView, explicit: boolean, fileSize: number): boolean {
  let pos = 0;
  let lastTag = -1;
  let seen = 0;
  while (seen < 4 && pos + 8 <= view.byteLength) {
    const tag = view.getUint16(pos, true) * 0x10000 + view.getUint16(pos + 2, true);
    if (tag <= lastTag) return false;
    lastTag = tag;
    let length: number;
    let header: number;
    if (explicit) {
      if (!isVr(head, pos + 4)) return false;
      const vr = String.fromCharCode(view.getUint8(pos + 4), view.getUint8(pos + 5));
      if (['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV'].includes(vr)) {
        if (pos + 12 > view.byteLength) break;
        length = view.getUint32(pos + 8, true);
        header = 12;
      } else {
        length = view.getUint16(pos + 6, true);
        header = 8;
      }
    } else {
      length = view.getUint32(pos + 4, true);
      header = 8;
    }
    seen++;
    // Undefined length (a sequence): cannot be skipped cheaply; what was seen so far must do.
    if (length === 0xffffffff) break;
    if (pos + header + length > fileSize) return false;
    pos += header + length;
  }
  return seen >= Math.min(2, fileSize >= 16 ? 2 : 1);
}

/** A parse failure of dicom-parser, as an Error with a readable message. */
export class DicomParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DicomParseError';
  }
}

/** dicom-parser's messages, in words a clinician can act on. */
const PLAIN_WORDS: [RegExp, string][] = [
  [
    /buffer overrun|past end of buffer|eof encountered|maxPosition/i,
    'its header is cut off or has wrong lengths',
  ],
  [/0002,0010/, 'its header does not say how it is encoded'],
  [/DICM prefix/, 'it is not a DICOM file'],
  [/inflat|incorrect header check|unexpected end of file/i, 'its compressed header cannot be unpacked'],
];

function parseFailure(e: unknown): DicomParseError {
  // dicom-parser throws strings, Errors, or { exception, dataSet }.
  const inner =
    typeof e === 'object' && e !== null && 'exception' in e ? (e as { exception: unknown }).exception : e;
  const text = inner instanceof Error ? inner.message : String(inner);
  const plain = PLAIN_WORDS.find(([re]) => re.test(text))?.[1];
  return new DicomParseError(plain ?? text.replace(/^dicomParser\.?[\w.]*:\s*/, ''));
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

/**
 * Parses DICOM bytes of any supported layout. With `untilPixelData` parsing stops at the pixel
 * data element (its header is read, its value is not), so a leading chunk of the file suffices.
 * Pass a Buffer: deflated data sets are inflated with Node's zlib, which needs one.
 */
export function parseDicomBytes(buf: Buffer, layout: DicomLayout, untilPixelData: boolean): ParsedDicom {
  const untilTag = untilPixelData ? PIXEL_DATA : undefined;
  const options = untilTag ? { untilTag } : {};
  try {
    if (layout === 'raw-explicit' || layout === 'raw-implicit') {
      const ts = layout === 'raw-explicit' ? EXPLICIT_LE : IMPLICIT_LE;
      const dataSet = dicomParser.parseDicom(buf, { ...options, TransferSyntaxUID: ts });
      return { dataSet, layout, transferSyntaxUid: ts, transferSyntaxGuessed: true, fileOffset: 0 };
    }
    if (layout === 'raw-meta') return parseRawMeta(buf, untilTag);
    const meta = dicomParser.readPart10Header(buf);
    const tsElement = meta.elements.x00020010;
    if (!tsElement || tsElement.length === 0) {
      // The meta header lacks its transfer syntax: infer it from the first element of the data set.
      const start = (meta as DataSet & { position: number }).position;
      const ts = isVr(buf, start + 4) ? EXPLICIT_LE : IMPLICIT_LE;
      const dataSet = dicomParser.parseDicom(buf.subarray(start), { ...options, TransferSyntaxUID: ts });
      return { dataSet, layout, transferSyntaxUid: ts, transferSyntaxGuessed: true, fileOffset: start };
    }
    const dataSet = dicomParser.parseDicom(buf, options);
    const ts = (dataSet.string('x00020010') ?? '').replace(/\0/g, '').trim();
    const parsed: ParsedDicom = { dataSet, layout, transferSyntaxUid: ts, transferSyntaxGuessed: false };
    if (ts !== DEFLATED_LE) parsed.fileOffset = 0;
    return parsed;
  } catch (e) {
    if (e instanceof DicomParseError) throw e;
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
  if (ts === DEFLATED_LE) throw new DicomParseError('deflated data set without a preamble is not supported');
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
}

/** A file whose content is not DICOM, with its first bytes for telling what it is instead. */
export interface NotDicom {
  notDicom: true;
  head: Buffer;
  fileSize: number;
}

/** First chunk read per file; the Philips CT headers in the fixtures are about 7.6 KB. */
export const FIRST_CHUNK = 16 * 1024;

/**
 * Reads and parses a file's header only: the first chunk, growing it (x4) until the pixel data
 * element is reached or the file ends. Returns NotDicom when the content is not DICOM. Throws
 * DicomParseError when it is DICOM but cannot be parsed (corrupt or truncated).
 *
 * Synchronous on purpose: four direct system calls per file are several times faster than four
 * round trips through libuv's thread pool, which is what makes scanning a thousand slices quick.
 * Callers scanning many files yield to the event loop between files (see intake).
 */
export function readDicomHeaderSync(path: string): HeaderRead | NotDicom {
  const fd = openSync(path, 'r');
  try {
    let fileSize = fstatSync(fd).size;
    let buf = Buffer.allocUnsafe(Math.min(fileSize, FIRST_CHUNK));
    let filled = 0;
    const fill = (to: number): void => {
      if (to > buf.length) {
        const bigger = Buffer.allocUnsafe(to);
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
      while (filled < to) {
        const n = readSync(fd, buf, filled, to - filled, filled);
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
      fill(fileSize); // a deflated data set can only be inflated whole
      view = buf.subarray(0, filled);
    }
    for (;;) {
      const whole = filled >= fileSize;
      let parsed: ParsedDicom | undefined;
      try {
        parsed = parseDicomBytes(view, layout, true);
      } catch (e) {
        if (whole) throw e instanceof DicomParseError ? e : parseFailure(e);
      }
      if (parsed && (whole || parsed.dataSet.elements[PIXEL_DATA]))
        return { parsed, fileSize, wholeFile: whole };
      fill(Math.min(fileSize, Math.max(filled * 4, FIRST_CHUNK)));
      view = buf.subarray(0, filled);
    }
  } finally {
    closeSync(fd);
  }
}

/** Reads and parses a whole file (pixel data included). Throws DicomParseError when not DICOM or unreadable. */
export async function readDicomFile(path: string): Promise<ParsedDicom & { buffer: Buffer }> {
  const fh = await open(path, 'r');
  let buffer: Buffer;
  try {
    buffer = await fh.readFile();
  } finally {
    await fh.close();
  }
  const layout = sniffDicom(buffer.subarray(0, SNIFF_BYTES), buffer.length);
  if (!layout) throw new DicomParseError('not a DICOM file');
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
export function missingPixelBytes(buffer: Buffer, layout: DicomLayout): number {
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
