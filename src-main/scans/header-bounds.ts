/**
 * How much header a file may have. A header is what comes before the image data: a CT slice's is
 * a few kilobytes, an enhanced multi-frame file's (a few dozen elements for each of thousands of
 * frames) some megabytes. A crafted file can declare far more: one element gigabytes long (the
 * header would be read into memory whole), or millions of empty elements (dicom-parser builds an
 * object for each: a 128 MB file of them took minutes and gigabytes). Both are refused in words
 * before that work starts.
 */

/** The most bytes read as one file's header. */
export const MAX_HEADER_BYTES = 128 * 1024 ** 2;

/**
 * The most data elements a file given to dicom-parser may hold: three times an enhanced CT of 3,000
 * frames (about 100 elements a frame), and a few seconds of parsing at the most.
 */
export const MAX_HEADER_ELEMENTS = 1_000_000;

const UNDEFINED = 0xffffffff;
const ITEM_GROUP = 0xfffe;
const ITEM = 0xe000;
const SEQUENCE_END = 0xe0dd;

/** VRs whose explicit form has two reserved bytes and a 32-bit length, as 16-bit codes. */
const LONG_VRS = new Set(
  ['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV'].map(
    (v) => (v.charCodeAt(0) << 8) | v.charCodeAt(1),
  ),
);
const SQ = ('S'.charCodeAt(0) << 8) | 'Q'.charCodeAt(0);
const WIDE_VRS = new Set(['OV', 'SV', 'UV'].map((v) => (v.charCodeAt(0) << 8) | v.charCodeAt(1)));
const UN = ('U'.charCodeAt(0) << 8) | 'N'.charCodeAt(0);

/** What countElements found. */
export interface HeaderCount {
  /** Data elements and sequence items. */
  elements: number;
  /** Fragments of encapsulated image data. */
  fragments: number;
  /**
   * The first element (not a sequence, not image data) that has an undefined length, which the
   * standard does not allow (PS3.5 7.1.1): dicom-parser would take its value to run to the next item
   * delimiter, the image data and all. The count stops there.
   */
  stray?: { tag: string; vr: string | undefined };
  /** Where the VR of each explicit OV, SV or UV element lies (the 64-bit VRs dicom-parser does not know). */
  wide: number[];
}

/**
 * Counts the data elements of a data set from `start`, items and the elements inside sequences
 * included, up to its pixel data (`untilPixelData`) or to its end, and stops counting past `max`.
 * One flat pass that steps into sequences and items rather than over them (so nothing nested is
 * missed; the fragments of encapsulated image data are stepped over, counted apart) and never
 * allocates: a few nanoseconds an element. Bytes that stop making sense end the count where it is;
 * the parser that reads them next refuses them.
 */
export function countElements(
  bytes: Uint8Array,
  start: number,
  syntax: { littleEndian: boolean; explicitVr: boolean },
  untilPixelData: boolean,
  max = MAX_HEADER_ELEMENTS,
): HeaderCount {
  const { littleEndian, explicitVr } = syntax;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.byteLength;
  let p = start;
  let elements = 0;
  let pieces = 0;
  // Inside encapsulated data (an undefined length that is not a sequence): items are fragments.
  let fragments = false;
  const wide: number[] = [];
  while (p + 8 <= end && elements + pieces <= max) {
    const group = view.getUint16(p, littleEndian);
    const element = view.getUint16(p + 2, littleEndian);
    const pixels = group === 0x7fe0 && element === 0x0010;
    if (pixels && untilPixelData) break;
    if (group === ITEM_GROUP) {
      const length = view.getUint32(p + 4, littleEndian);
      if (element === SEQUENCE_END) fragments = false;
      // A sequence item's elements follow its header; a fragment's bytes are stepped over.
      const fragment = fragments && element === ITEM && length !== UNDEFINED;
      if (fragment) pieces++;
      else elements++;
      p += fragment ? 8 + length : 8;
      continue;
    }
    elements++;
    let length: number;
    let header = 8;
    let sequence = false;
    let vr: number | undefined;
    if (explicitVr) {
      vr = (bytes[p + 4]! << 8) | bytes[p + 5]!;
      if (LONG_VRS.has(vr)) {
        if (p + 12 > end) break;
        if (WIDE_VRS.has(vr)) wide.push(p + 4);
        length = view.getUint32(p + 8, littleEndian);
        header = 12;
        // dicom-parser reads an undefined-length UN as a sequence in implicit VR (PS3.5 6.2.2).
        sequence = vr === SQ || (vr === UN && length === UNDEFINED);
      } else {
        length = view.getUint16(p + 6, littleEndian);
      }
    } else {
      length = view.getUint32(p + 4, littleEndian);
      // Implicit VR does not say which elements are sequences: one whose value starts with an item
      // (or, empty, with its sequence delimiter) is, as dicom-parser takes it.
      const next = p + 12 <= end ? view.getUint16(p + 10, littleEndian) : -1;
      sequence =
        !pixels &&
        (length === UNDEFINED || length >= 8) &&
        p + 12 <= end &&
        view.getUint16(p + 8, littleEndian) === ITEM_GROUP &&
        (next === ITEM || (length === UNDEFINED && next === SEQUENCE_END));
    }
    if (length === UNDEFINED && !sequence) {
      if (!pixels) {
        const hex = (n: number): string => n.toString(16).toUpperCase().padStart(4, '0');
        const name = vr === undefined ? undefined : String.fromCharCode(vr >> 8, vr & 0xff);
        return {
          elements,
          fragments: pieces,
          stray: { tag: `(${hex(group)},${hex(element)})`, vr: name },
          wide,
        };
      }
      fragments = true;
    }
    // Undefined lengths and sequences: step into their content; anything else: over its value.
    p += length === UNDEFINED || sequence ? header : header + length;
  }
  return { elements, fragments: pieces, wide };
}

/** The words for a header with more elements than MAX_HEADER_ELEMENTS. */
export function tooManyElements(): string {
  return `its header holds more than ${MAX_HEADER_ELEMENTS.toLocaleString('en-US')} data elements before the image data, far more than any scan's: the file is damaged or made to stall a reader`;
}

/** The words for a header longer than MAX_HEADER_BYTES. */
export function headerTooLong(): string {
  return `its header runs on past ${MAX_HEADER_BYTES / 1024 ** 2} MB before the image data, far longer than any scan's: the file is damaged or made to stall a reader`;
}

/** The words for image data in more than MAX_HEADER_ELEMENTS fragments. */
export function tooManyFragments(): string {
  return `its image data is split into more than ${MAX_HEADER_ELEMENTS.toLocaleString('en-US')} pieces (fragments), far more than any scan's: the file is damaged or made to stall a reader`;
}

/** The words for an element of undefined length that is neither a sequence nor image data. */
export function strayUndefinedLength(stray: { tag: string; vr: string | undefined }): string {
  return `its element ${stray.tag}${stray.vr ? ` (${stray.vr})` : ''} has an undefined length, which DICOM allows only for sequences and image data, so where its value ends (and where the image is) cannot be known: the file is damaged or was written by a program that does not follow the standard`;
}
