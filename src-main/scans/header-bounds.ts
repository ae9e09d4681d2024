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

/**
 * Counts the data elements of a data set from `start`, items and the elements inside sequences
 * included, up to its pixel data (`untilPixelData`) or to its end, and stops counting past `max`.
 * One flat pass that steps into sequences and items rather than over them (so nothing nested is
 * missed; the fragments of encapsulated image data are stepped over) and never allocates: a few
 * nanoseconds an element. Bytes that stop making sense end the count where it is; the parser that
 * reads them next refuses them.
 */
export function countElements(
  bytes: Uint8Array,
  start: number,
  syntax: { littleEndian: boolean; explicitVr: boolean },
  untilPixelData: boolean,
  max = MAX_HEADER_ELEMENTS,
): number {
  const { littleEndian, explicitVr } = syntax;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.byteLength;
  let p = start;
  let n = 0;
  // Inside encapsulated data (an undefined length that is not a sequence): items are fragments.
  let fragments = false;
  while (p + 8 <= end && n <= max) {
    const group = view.getUint16(p, littleEndian);
    const element = view.getUint16(p + 2, littleEndian);
    const pixels = group === 0x7fe0 && element === 0x0010;
    if (pixels && untilPixelData) break;
    n++;
    if (group === ITEM_GROUP) {
      const length = view.getUint32(p + 4, littleEndian);
      if (element === SEQUENCE_END) fragments = false;
      // A sequence item's elements follow its header; a fragment's bytes are stepped over.
      p += fragments && element === ITEM && length !== UNDEFINED ? 8 + length : 8;
      continue;
    }
    let length: number;
    let header = 8;
    let sequence = false;
    if (explicitVr) {
      const vr = (bytes[p + 4]! << 8) | bytes[p + 5]!;
      if (LONG_VRS.has(vr)) {
        if (p + 12 > end) break;
        length = view.getUint32(p + 8, littleEndian);
        header = 12;
        sequence = vr === SQ;
      } else {
        length = view.getUint16(p + 6, littleEndian);
      }
    } else {
      length = view.getUint32(p + 4, littleEndian);
      // Implicit VR does not say which elements are sequences: one whose value starts with an item is.
      sequence =
        !pixels &&
        (length === UNDEFINED || length >= 8) &&
        p + 12 <= end &&
        view.getUint16(p + 8, littleEndian) === ITEM_GROUP &&
        view.getUint16(p + 10, littleEndian) === ITEM;
    }
    if (length === UNDEFINED && !sequence) fragments = true;
    // Undefined lengths and sequences: step into their content; anything else: over its value.
    p += length === UNDEFINED || sequence ? header : header + length;
  }
  return n;
}

/** The words for a header with more elements than MAX_HEADER_ELEMENTS. */
export function tooManyElements(): string {
  return `its header holds more than ${MAX_HEADER_ELEMENTS.toLocaleString('en-US')} data elements before the image data, far more than any scan's: the file is damaged or made to stall a reader`;
}

/** The words for a header longer than MAX_HEADER_BYTES. */
export function headerTooLong(): string {
  return `its header runs on past ${MAX_HEADER_BYTES / 1024 ** 2} MB before the image data, far longer than any scan's: the file is damaged or made to stall a reader`;
}
