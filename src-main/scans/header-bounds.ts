import { tagWords } from './tag-words.js';

/**
 * How much header a file may have. A header is what comes before the image data: a CT slice's is
 * a few kilobytes, an enhanced multi-frame file's (a few dozen elements for each of thousands of
 * frames) some megabytes. A crafted file can declare far more: one element gigabytes long (the
 * header would be read into memory whole), or millions of empty elements (dicom-parser builds an
 * object for each: a 128 MB file of them took minutes and gigabytes). Both are refused in words
 * before that work starts.
 */

/**
 * The deepest nesting of sequences a file given to dicom-parser may have. An image's header nests
 * three or four deep (Enhanced CT's functional groups); dicom-parser reads one level by recursion,
 * and a file 3,000 deep overflowed its stack when a scan was read whole to be de-identified.
 */
export const MAX_SEQUENCE_DEPTH = 128;

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
const ITEM_END = 0xe00d;
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
  /** True when sequences nest deeper than MAX_SEQUENCE_DEPTH: the count stops there. */
  tooDeep?: true;
  /**
   * The first top-level element of `twiceWatched` met a second time: which of its two values holds
   * cannot be known (DICOM keeps each once, in ascending order). The count stops there.
   */
  twice?: string;
}

/**
 * Where the count is, as dicom-parser would be: in a data set (its elements, up to `end`, or to an
 * item delimiter when `end` is undefined) or in a sequence (its items, up to `end`, or to a sequence
 * delimiter), read with explicit or implicit VR.
 */
interface Level {
  set: boolean;
  end: number | undefined;
  explicit: boolean;
  /** A sequence read as the value of an item delimiter: its item's data set ends with it. */
  closes?: boolean;
}

/**
 * Counts the data elements of a data set from `start`, items and the elements inside sequences
 * included, up to its pixel data (`untilPixelData`) or to its end, and stops counting past `max`.
 * It walks the bytes as dicom-parser (1.8) will, so that what it counts is what dicom-parser would
 * make an object of: the same sequences (in implicit VR, any value that starts with an item, whatever
 * its length; in explicit VR, an undefined-length UN, whose items are then read in implicit VR), the
 * same items running past the end of their sequence. A count that read the bytes another way missed
 * millions of elements in either place, and dicom-parser took minutes and gigabytes over them. The
 * fragments of encapsulated image data are stepped over and counted apart. It never allocates per
 * element (a few nanoseconds each); bytes that stop making sense end the count where it is, and the
 * parser that reads them next refuses them.
 */
export function countElements(
  bytes: Uint8Array,
  start: number,
  syntax: { littleEndian: boolean; explicitVr: boolean },
  untilPixelData: boolean,
  max = MAX_HEADER_ELEMENTS,
  /** Top-level tags that may appear once only: those the app reads. */
  twiceWatched?: ReadonlySet<number>,
): HeaderCount {
  const { littleEndian } = syntax;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = bytes.byteLength;
  const u16 = (at: number): number => view.getUint16(at, littleEndian);
  const u32 = (at: number): number => view.getUint32(at, littleEndian);
  let p = start;
  let elements = 0;
  let pieces = 0;
  const wide: number[] = [];
  const levels: Level[] = [{ set: true, end: len, explicit: syntax.explicitVr }];
  const result = (stray?: HeaderCount['stray']): HeaderCount =>
    stray ? { elements, fragments: pieces, stray, wide } : { elements, fragments: pieces, wide };
  const pop = (): void => {
    if (levels.pop()?.closes) levels.pop();
  };
  /** The watched top-level tags met so far (group << 16 | element). */
  const seen = new Set<number>();
  while (levels.length > 0 && elements + pieces <= max) {
    const level = levels[levels.length - 1]!;
    if (level.end !== undefined && p >= level.end) {
      pop();
      continue;
    }
    if (p + 8 > len) break;
    const group = u16(p);
    const element = u16(p + 2);
    if (!level.set) {
      // A sequence's next item, or its delimiter; what is not an item is read as one all the same.
      if (level.end === undefined && group === ITEM_GROUP && element === SEQUENCE_END) {
        p += 8;
        pop();
        continue;
      }
      elements++;
      const length = u32(p + 4);
      p += 8;
      levels.push({
        set: true,
        end: length === UNDEFINED ? undefined : p + length,
        explicit: level.explicit,
      });
      continue;
    }
    if (levels.length === 1 && twiceWatched) {
      // A second Pixel Spacing after the first, or a second image after the pixel data: a review's
      // files were read by whichever value the reader kept, one way here and another in pydicom.
      const tag = group * 0x10000 + element;
      if (twiceWatched.has(tag)) {
        if (seen.has(tag)) return { ...result(), twice: tagWords(tag) };
        seen.add(tag);
      }
    }
    // Image data: the data set's, where the count stops when asked to, or an icon's in a sequence.
    const pixels = group === 0x7fe0 && element === 0x0010;
    if (pixels && untilPixelData && levels.length === 1) break;
    elements++;
    // An item's data set of undefined length ends at its delimiter, which dicom-parser reads as any
    // element first: with the length its bytes give, even as a sequence.
    const closes = level.end === undefined && group === ITEM_GROUP && element === ITEM_END;
    let length: number;
    let header = 8;
    let vr: number | undefined;
    let sequence: Level | undefined;
    if (level.explicit) {
      vr = (bytes[p + 4]! << 8) | bytes[p + 5]!;
      if (LONG_VRS.has(vr)) {
        if (p + 12 > len) break;
        if (WIDE_VRS.has(vr)) wide.push(p + 4);
        length = u32(p + 8);
        header = 12;
      } else {
        length = u16(p + 6);
      }
      if (vr === SQ) sequence = { set: false, end: undefined, explicit: true };
      // dicom-parser reads the items of an undefined-length UN in implicit VR (PS3.5 6.2.2), unless
      // it is image data, which it reads as fragments.
      else if (vr === UN && length === UNDEFINED && !pixels)
        sequence = { set: false, end: undefined, explicit: false };
    } else {
      length = u32(p + 4);
      // Implicit VR does not say which elements are sequences: dicom-parser takes one whose value
      // starts with an item or a sequence delimiter for one (a private one only of undefined length).
      const next = p + 12 <= len && u16(p + 8) === ITEM_GROUP ? u16(p + 10) : -1;
      const looksLike = next === ITEM || next === SEQUENCE_END;
      if (looksLike && ((group & 1) === 0 || length === UNDEFINED))
        sequence = { set: false, end: undefined, explicit: false };
    }
    p += header;
    if (sequence) {
      if (length !== UNDEFINED) sequence.end = p + length;
      if (closes) sequence.closes = true;
      // A data set and a sequence level per sequence: the top level's data set is the first.
      if (levels.length >= 2 * MAX_SEQUENCE_DEPTH + 1) return { ...result(), tooDeep: true };
      levels.push(sequence);
      continue;
    }
    if (length !== UNDEFINED) {
      p += length;
      if (closes) pop();
      continue;
    }
    // Image data of undefined length is fragments in explicit VR only; elsewhere, as any other
    // element, dicom-parser would take its value to run to the next item delimiter.
    if (!pixels || !level.explicit) {
      const name = vr === undefined ? undefined : String.fromCharCode(vr >> 8, vr & 0xff);
      return result({ tag: tagWords(group * 0x10000 + element), vr: name });
    }
    // Encapsulated image data as dicom-parser reads it: the offset table's item (it refuses data
    // without one), then fragments up to the sequence delimiter, stepped over by the length each
    // gives; another tag is the last fragment, and the data set goes on after it.
    if (p + 8 > len || u16(p) !== ITEM_GROUP || u16(p + 2) !== ITEM) return result();
    p += 8 + u32(p + 4);
    while (p + 8 <= len && elements + pieces <= max) {
      const item = u16(p) === ITEM_GROUP ? u16(p + 2) : -1;
      const size = u32(p + 4);
      p += 8;
      if (item === SEQUENCE_END) {
        p += size;
        break;
      }
      pieces++;
      if (item === ITEM) {
        p += size;
        continue;
      }
      p += Math.min(size, len - p);
      break;
    }
    if (closes) pop();
  }
  return result();
}

/** The words for a top-level element met twice. */
export function elementTwice(tag: string): string {
  return `its header holds the element ${tag} twice, so which of its two values holds cannot be known: the file is damaged or was written by a program that does not follow the standard`;
}

/** The words for a header with more elements than MAX_HEADER_ELEMENTS. */
export function tooManyElements(): string {
  return `its header holds more than ${MAX_HEADER_ELEMENTS.toLocaleString('en-US')} data elements before the image data, far more than any scan's: the file is damaged or made to stall a reader`;
}

/** The words for sequences nested deeper than MAX_SEQUENCE_DEPTH. */
export function nestedTooDeep(): string {
  return `its header nests sequences more than ${MAX_SEQUENCE_DEPTH} deep, far deeper than any scan's: the file is damaged or made to stall a reader`;
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
