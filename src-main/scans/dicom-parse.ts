/**
 * Parsing DICOM bytes with dicom-parser, bounded: the element count and undefined lengths are
 * checked before it builds anything, deflated data sets inflate within a bound, and what it throws
 * becomes words a clinician can act on. Reading the bytes from files is dicom-file.ts's.
 */
import { inflateRawSync } from 'node:zlib';
import type { DataSet } from 'dicom-parser';
import { dicomParserLib, ParserBudgetSpent, withParserBudget } from './dicom-parser-lib.js';
import { isVr, type DicomLayout } from './dicom-sniff.js';
import {
  countElements,
  MAX_HEADER_ELEMENTS,
  nestedTooDeep,
  elementTwice,
  strayUndefinedLength,
  tooManyElements,
  tooManyFragments,
} from './header-bounds.js';
import { HEADER_TAGS, TAG } from './header-tags.js';
import { checkInflateLeft, DropBudgetSpent, spendElements, spendInflated } from './drop-parse-budget.js';
import { DEFLATED_LE, EXPLICIT_BE, EXPLICIT_LE, IMPLICIT_LE, transferSyntax } from './transfer-syntax.js';

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

/** A file left unread because its drop spent its reading budget (drop-parse-budget.ts): not damaged. */
export class DropOverBudget extends DicomParseError {}

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
  if (inner instanceof ParserBudgetSpent) return new DicomParseError(tooManyElements());
  if (inner instanceof DropBudgetSpent) return new DropOverBudget(inner.message);
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
 * present: 20 times the deflated size, at least 64 MB (any one slice, however blank, fits) and at most
 * 1 GB. CT images deflate to a half or a third; 200 times let a review's 6.5 MB file (5 MB of noise
 * to raise the bound, then 990 MB of zeros) take 3 GB to look at and 5 GB to make a mesh of.
 */
export function maxInflated(deflatedBytes: number): number {
  return Math.min(1024 ** 3, Math.max(64 * 1024 ** 2, 20 * deflatedBytes));
}

export function boundedInflater(bytes: Uint8Array, position: number): Buffer {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const deflated = b.subarray(position);
  checkInflateLeft();
  const inflated = inflateRawSync(deflated, { maxOutputLength: maxInflated(deflated.length) });
  spendInflated(inflated.length);
  // What was inflated is explicit VR little endian, and dicom-parser reads all of it.
  boundedForParser(inflated, 0, EXPLICIT_LE, false);
  // dicom-parser reads the returned bytes from offset 0, not from `position`: the preamble too, as
  // elements. Zeros read as empty elements, but any other preamble (a vendor's, or text) made a valid
  // file fail as damaged. The preamble holds nothing the app reads, so it is given as zeros.
  const head = Buffer.from(b.subarray(0, position));
  if (head.toString('latin1', 128, 132) === 'DICM') head.fill(0, 0, 128);
  return Buffer.concat([head, inflated]);
}

/**
 * Readies a data set's bytes for dicom-parser. Refuses, before it makes an object of each, a data
 * set with absurdly many elements or a stray undefined length. And rewrites the VR of 64-bit
 * elements (OV, SV, UV; 2019) as OB: dicom-parser does not know them, reads their 4-byte length as
 * a 2-byte one and loses its way, so a valid file with an Extended Offset Table was refused as
 * damaged. OB is read alike (a 4-byte length); the app reads none of their values, and
 * de-identification drops a value whose VR is not its own.
 */
function boundedForParser(buf: Uint8Array, start: number, tsUid: string, untilPixelData: boolean): void {
  const c = countElements(buf, start, transferSyntax(tsUid), untilPixelData, MAX_HEADER_ELEMENTS, READ_ONCE);
  if (c.stray) throw new DicomParseError(strayUndefinedLength(c.stray));
  if (c.tooDeep) throw new DicomParseError(nestedTooDeep());
  if (c.twice) throw new DicomParseError(elementTwice(c.twice));
  if (c.elements + c.fragments > MAX_HEADER_ELEMENTS)
    throw new DicomParseError(c.fragments > c.elements ? tooManyFragments() : tooManyElements());
  spendElements(c.elements + c.fragments);
  for (const at of c.wide) buf.set(OB, at);
}

const OB = Uint8Array.from([0x4f, 0x42]);

/**
 * The top-level tags whose value decides what a model is made of, and the image data: each may appear
 * once only. Which of two descriptions, names or windows holds decides nothing of a model (a review:
 * a writer that repeats the Series Description lost every file of a scan).
 */
const DESCRIPTIVE = new Set<string>(
  [
    TAG.charset,
    TAG.studyDate,
    TAG.manufacturer,
    TAG.studyDescription,
    TAG.seriesDescription,
    TAG.patientName,
    TAG.patientId,
    TAG.patientBirthDate,
    TAG.seriesNumber,
    TAG.instanceNumber,
    TAG.windowCenter,
    TAG.windowWidth,
  ].map((k) => HEADER_TAGS[k]!),
);
const READ_ONCE: ReadonlySet<number> = new Set(
  [...HEADER_TAGS.filter((t) => !DESCRIPTIVE.has(t)), PIXEL_DATA].map((t) => Number.parseInt(t.slice(1), 16)),
);

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
export function parseDicomBytes(buf: Buffer, layout: DicomLayout, untilPixelData: boolean): ParsedDicom {
  return withParserBudget(() => parseBytes(buf, layout, untilPixelData));
}

function parseBytes(buf: Buffer, layout: DicomLayout, untilPixelData: boolean): ParsedDicom {
  const untilTag = untilPixelData ? PIXEL_DATA : undefined;
  const options = { ...(untilTag ? { untilTag } : {}), inflater: boundedInflater };
  try {
    const raw = RAW_SYNTAX[layout];
    if (raw) {
      boundedForParser(buf, 0, raw, untilPixelData);
      const dataSet = dicomParserLib().parseDicom(buf, { ...options, TransferSyntaxUID: raw });
      return { dataSet, layout, transferSyntaxUid: raw, transferSyntaxGuessed: true, fileOffset: 0 };
    }
    if (layout === 'raw-meta') return parseRawMeta(buf, untilTag);
    const meta = dicomParserLib().readPart10Header(buf);
    const tsElement = meta.elements.x00020010;
    if (!tsElement || tsElement.length === 0) {
      // The meta header lacks its transfer syntax: infer it from the first element of the data set.
      const start = (meta as DataSet & { position: number }).position;
      const ts = isVr(buf, start + 4) ? EXPLICIT_LE : IMPLICIT_LE;
      boundedForParser(buf, start, ts, untilPixelData);
      const dataSet = dicomParserLib().parseDicom(buf.subarray(start), { ...options, TransferSyntaxUID: ts });
      return { dataSet, layout, transferSyntaxUid: ts, transferSyntaxGuessed: true, fileOffset: start };
    }
    const metaTs = (meta.string('x00020010') ?? '').replace(/\0/g, '').trim();
    const start = (meta as DataSet & { position: number }).position;
    if (metaTs === IMPLICIT_LE && isVr(buf, start + 4)) {
      // The meta header says implicit VR, the data set names its VRs: pydicom reads such a file as
      // explicit VR, and so does this (dicom-parser would take the VR letters for lengths).
      boundedForParser(buf, start, EXPLICIT_LE, untilPixelData);
      const dataSet = dicomParserLib().parseDicom(buf.subarray(start), {
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
    if (metaTs !== DEFLATED_LE) boundedForParser(buf, start, metaTs, untilPixelData);
    const dataSet = dicomParserLib().parseDicom(buf, options);
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
  const metaOnly = dicomParserLib().parseDicom(buf, {
    TransferSyntaxUID: EXPLICIT_LE,
    untilTag: 'x00080000',
  });
  let end = 0;
  for (const el of Object.values(metaOnly.elements)) {
    if (el.tag < 'x00030000') end = Math.max(end, el.dataOffset + el.length);
  }
  const ts = (metaOnly.string('x00020010') ?? EXPLICIT_LE).replace(/\0/g, '').trim() || EXPLICIT_LE;
  if (ts === DEFLATED_LE)
    throw new DicomParseError('it is compressed as a whole without the file header that says so');
  boundedForParser(buf, end, ts, untilTag !== undefined);
  const dataSet = dicomParserLib().parseDicom(buf.subarray(end), {
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
