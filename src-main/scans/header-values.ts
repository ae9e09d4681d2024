import { decimalValue } from './dicom-decimal.js';
import { DicomParseError } from './dicom-file.js';
import { HEADER_TAGS } from './header-tags.js';

/**
 * Where the values of a header's tags lie in its bytes, by their place in HEADER_TAGS: filled by the
 * tag-only reader (header-tag-reader.ts) or from a data set dicom-parser read (header-fields.ts),
 * and decoded by the functions below, so that both readers give the same values.
 */
export class TagTable {
  bytes: Buffer = Buffer.alloc(0);
  /** Offset of each tag's value in `bytes`, -1 when the header lacks the tag. */
  readonly offset: number[] = HEADER_TAGS.map(() => -1);
  readonly length: number[] = HEADER_TAGS.map(() => 0);
  /** True when numbers are stored big endian (only data sets dicom-parser read can be). */
  bigEndian = false;
  /** Offset of the pixel data's value, -1 when the header has no pixel data. */
  pixelOffset = -1;
  pixelLength = 0;
  /** Pixel data of undefined length: compressed frames in items. */
  pixelEncapsulated = false;
  /** Where bytes[0] lies in the file; undefined when the data set was inflated. */
  fileOffset: number | undefined = 0;
  transferSyntaxUid = '';
  /**
   * 1 where the value is the same bytes as the tag-only reader's template has for that tag (see
   * header-template.ts): then it decodes to the same value, kept from the first time.
   */
  readonly same = new Uint8Array(HEADER_TAGS.length);
  /** The template's generation, which values kept for `same` tags must come from. */
  generation = 0;
  /** True when this header became the template (see header-model.ts). */
  isTemplate = false;

  clear(bytes: Buffer): void {
    this.bytes = bytes;
    this.offset.fill(-1);
    this.length.fill(0);
    this.same.fill(0);
    this.isTemplate = false;
    this.bigEndian = false;
    this.pixelOffset = -1;
    this.pixelLength = 0;
    this.pixelEncapsulated = false;
    this.fileOffset = 0;
    this.transferSyntaxUid = '';
  }
}

const UNDEFINED = 0xffffffff;

/**
 * Values decoded for tables' `same` tags, by slot, each with the decoder that made it (a value is
 * only another header's when that decoder made it) and the template generation it belongs to.
 */
const kept: unknown[] = HEADER_TAGS.map(() => undefined);
const keptAs = HEADER_TAGS.map(() => 0);
const keptIn = HEADER_TAGS.map(() => -1);
/** text() keeps its form and character set with it: TEXT + 2 * form + (utf8 ? 1 : 0). */
const TEXT = 1;
const UID = 7;
const UID_UTF8 = 8;
const NUM = 9;
const FIXED = 10;
const UTF8 = 11;
/** numbers() keeps its count with it: NUMBERS + count. */
const NUMBERS = 100;

const isKept = (t: TagTable, k: number, as: number): boolean =>
  t.same[k] === 1 && keptIn[k] === t.generation && keptAs[k] === as;

function keep<T>(t: TagTable, k: number, as: number, value: T): T {
  if (t.same[k] === 1) {
    kept[k] = value;
    keptAs[k] = as;
    keptIn[k] = t.generation;
  }
  return value;
}

/** Bytes as Latin-1 characters, in one native call (what Buffer#toString('latin1') ends in). */
export function latin1(b: Buffer, start: number, end: number): string {
  return (b as Buffer & { latin1Slice(start: number, end: number): string }).latin1Slice(start, end);
}

/** 1 for the Latin-1 characters String#trim removes (asked of trim itself, so the two agree). */
const TRIMMED = Uint8Array.from({ length: 256 }, (_, c) =>
  (String.fromCharCode(c) + 'a').trim() === 'a' ? 1 : 0,
);

const utf8Decoder = new TextDecoder('utf-8');

/** Where a value ends, clamped to the bytes as Buffer#toString and subarray clamp it. */
const endOf = (t: TagTable, k: number): number => Math.min(t.offset[k]! + t.length[k]!, t.bytes.length);

/** How text() gives a value: as it is, in upper case, or as a person's name (trailing ^ removed). */
export const AS_IS = 0;
export const UPPER = 1;
export const NAME = 2;

/**
 * A text value decoded as the Specific Character Set allows (UTF-8, else Latin-1), trailing NULs
 * removed, then trimmed, in the given form; '' when absent. The Latin-1 case trims the bytes before
 * it decodes them, which gives the same string as trimming the decoded one, with one string made
 * instead of three.
 */
export function text(t: TagTable, k: number, utf8: boolean, form = AS_IS): string {
  const as = TEXT + 2 * form + (utf8 ? 1 : 0);
  if (isKept(t, k, as)) return kept[k] as string;
  const s = decodeText(t, k, utf8);
  return keep(t, k, as, form === UPPER ? s.toUpperCase() : form === NAME ? s.replace(/\^+$/, '') : s);
}

/** Whether the Specific Character Set (the element at k) says UTF-8 (ISO_IR 192). */
export function isUtf8(t: TagTable, k: number): boolean {
  if (t.offset[k]! < 0) return false;
  return isKept(t, k, UTF8)
    ? (kept[k] as boolean)
    : keep(t, k, UTF8, /ISO_IR 192/i.test(decodeFixedText(t, k) ?? ''));
}

function decodeText(t: TagTable, k: number, utf8: boolean): string {
  const at = t.offset[k]!;
  const n = t.length[k]!;
  if (at < 0 || n === 0 || n === UNDEFINED) return '';
  const b = t.bytes;
  let start = at;
  let end = endOf(t, k);
  if (end <= start) return '';
  if (utf8) return utf8Decoder.decode(b.subarray(start, end)).replace(/\0+$/, '').trim();
  while (end > start && b[end - 1] === 0) end--;
  while (end > start && TRIMMED[b[end - 1]!] === 1) end--;
  while (start < end && TRIMMED[b[start]!] === 1) start++;
  return start === end ? '' : latin1(b, start, end);
}

/** A UID: text without any NUL (some writers pad inside). */
export function uid(t: TagTable, k: number, utf8: boolean): string {
  const as = utf8 ? UID_UTF8 : UID;
  if (isKept(t, k, as)) return kept[k] as string;
  const s = decodeText(t, k, utf8);
  return keep(t, k, as, s.indexOf('\0') < 0 ? s : s.replace(/\0/g, ''));
}

/** The whole value as Latin-1 characters, nothing removed. */
function rawText(t: TagTable, k: number): string {
  const at = t.offset[k]!;
  const end = endOf(t, k);
  return end > at ? latin1(t.bytes, at, end) : '';
}

/** Whether the header has a value for the tag at k (present, neither empty nor of undefined length). */
export function hasValue(t: TagTable, k: number): boolean {
  const n = t.length[k]!;
  return t.offset[k]! >= 0 && n > 0 && n !== UNDEFINED;
}

/** The value's text for a message: NULs and spaces at its ends removed, at most 64 characters. */
export function valueText(t: TagTable, k: number): string {
  return shortText(rawText(t, k));
}

export function shortText(s: string): string {
  // Shown in a window and a terminal: a crafted value's control characters are no part of it.
  const v = s.replace(/^[\0 ]+|[\0 ]+$/g, '').replace(/[^\x20-\x7e]/g, '?');
  return v.length > 64 ? `${v.slice(0, 61)}...` : v;
}

/** The numbers of a decimal or integer string (DS, IS) element; undefined when absent or not numeric. */
export function numbers(t: TagTable, k: number, count: number): number[] | undefined {
  // The headers of a series then share one array, as the frames of a multi-frame file always have.
  return isKept(t, k, NUMBERS + count)
    ? (kept[k] as number[] | undefined)
    : keep(t, k, NUMBERS + count, decodeNumbers(t, k, count));
}

function decodeNumbers(t: TagTable, k: number, count: number): number[] | undefined {
  const n = t.length[k]!;
  if (t.offset[k]! < 0 || n === 0 || n === UNDEFINED) return undefined;
  return numbersIn(rawText(t, k), count);
}

/** The `count` numbers of a DS or IS value's text; undefined when it holds another count or any is not a number. */
export function numbersIn(value: string, count: number): number[] | undefined {
  const parts = value.split('\\');
  // Exactly as many values as the attribute holds (its VM): a Pixel Spacing of three values was read
  // as its first two, while one of one value was refused; which two were meant cannot be known.
  if (parts.length !== count) return undefined;
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const v = decimalValue(parts[i]!);
    if (!Number.isFinite(v)) return undefined;
    out.push(v);
  }
  return out;
}

/** The first number of a DS or IS element (the text before its first backslash). */
export function num(t: TagTable, k: number): number | undefined {
  return isKept(t, k, NUM) ? (kept[k] as number | undefined) : keep(t, k, NUM, decodeNum(t, k));
}

function decodeNum(t: TagTable, k: number): number | undefined {
  const n = t.length[k]!;
  if (t.offset[k]! < 0 || n === 0 || n === UNDEFINED) return undefined;
  const text = rawText(t, k);
  const cut = text.indexOf('\\');
  const v = decimalValue(cut < 0 ? text : text.slice(0, cut));
  return Number.isFinite(v) ? v : undefined;
}

/** An unsigned short (US) value; undefined when absent or shorter than two bytes. */
export function us(t: TagTable, k: number): number | undefined {
  const at = t.offset[k]!;
  if (at < 0 || t.length[k]! < 2) return undefined;
  const b = t.bytes;
  if (at + 2 > b.length) {
    // dicom-parser's own words (a string, as it throws them): the reason and the log stay as they were.
    throw `${t.bigEndian ? 'big' : 'little'}EndianByteArrayParser.readUint16: attempt to read past end of buffer`;
  }
  return t.bigEndian ? (b[at]! << 8) + b[at + 1]! : b[at]! + b[at + 1]! * 256;
}

/**
 * A value as dicom-parser's DataSet.string gives it (up to the first NUL, trimmed, or undefined when
 * empty); it fails as that does when the value runs past the bytes.
 */
export function fixedText(t: TagTable, k: number): string | undefined {
  return isKept(t, k, FIXED) ? (kept[k] as string | undefined) : keep(t, k, FIXED, decodeFixedText(t, k));
}

function decodeFixedText(t: TagTable, k: number): string | undefined {
  const at = t.offset[k]!;
  const n = t.length[k]!;
  if (at < 0 || !(n > 0)) return undefined;
  const b = t.bytes;
  if (at + n > b.length)
    throw new DicomParseError(
      'its header is cut off or has wrong lengths',
      'dicomParser.readFixedString: attempt to read past end of buffer',
    );
  let end = at;
  while (end < at + n && b[end] !== 0) end++;
  return latin1(b, at, end).trim();
}
