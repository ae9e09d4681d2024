import dicomParser from 'dicom-parser';
import type { DataSet, Element } from 'dicom-parser';
import type { ParsedDicom } from './dicom-file.js';
import { fixedText } from './header-fields.js';
import { HEADER_TAGS } from './header-tags.js';
import { DEFLATED_LE, EXPLICIT_BE, IMPLICIT_LE } from './transfer-syntax.js';

/**
 * A bounded, tag-only reader for the common case of a header: a Part 10 file in explicit or
 * implicit VR little endian whose elements are all well formed up to the pixel data. It walks the
 * elements once (skipping values, sequences included), keeps only the elements scan2mesh reads
 * (HEADER_TAGS) and never reads the pixel data. Its work is linear in the bytes it is given, with
 * nesting bounded, so one crafted header cannot hold a thread long.
 *
 * It is strict on purpose: whatever it is not sure dicom-parser would read the same way (big endian,
 * deflated, a missing transfer syntax, unknown VRs, undefined-length values other than sequences,
 * items that overrun their sequence, the Enhanced functional-group sequences, ...) it answers 'odd',
 * and the caller reads the file with dicom-parser instead, so results and messages stay dicom-parser's.
 * 'more' means the bytes end before the header does: read more of the file, or hand it on.
 */
export type TagRead = ParsedDicom | 'more' | 'odd';

const MORE = -1;
const ODD = -2;
const UNDEFINED = 0xffffffff;
const PIXEL_DATA = 0x7fe00010;
const ITEM = 0xfffee000;
const ITEM_END = 0xfffee00d;
const SEQUENCE_END = 0xfffee0dd;
/** Sequences nest a few levels in real files; deeper is hostile or broken. */
const MAX_DEPTH = 16;

/** VR kinds, by the VR's two characters as one 16-bit number. */
const SHORT = 1;
const LONG = 2;
const SQ = 3;
const VR_KIND = new Uint8Array(65536);
const vrCode = (vr: string): number => (vr.charCodeAt(0) << 8) | vr.charCodeAt(1);
for (const vr of 'AE AS AT CS DA DS DT FL FD IS LO LT PN SH SL SS ST TM UI UL US'.split(' '))
  VR_KIND[vrCode(vr)] = SHORT;
// dicom-parser's list of VRs with a 32-bit length. OV, SV and UV are left unknown: dicom-parser
// gives them a 16-bit length, against the standard, so such files go to it.
for (const vr of 'OB OD OF OL OW UC UR UT UN'.split(' ')) VR_KIND[vrCode(vr)] = LONG;
VR_KIND[vrCode('SQ')] = SQ;

const WANTED = new Map<number, string>(HEADER_TAGS.map((t) => [parseInt(t.slice(1), 16), t]));

interface Walk {
  b: Uint8Array;
  explicit: boolean;
  found: Record<string, Element>;
  done: boolean;
}

const u16 = (b: Uint8Array, p: number): number => b[p]! | (b[p + 1]! << 8);
const u32 = (b: Uint8Array, p: number): number =>
  (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16)) + b[p + 3]! * 0x1000000;
const tagAt = (b: Uint8Array, p: number): number => u16(b, p) * 0x10000 + u16(b, p + 2);

/** The VR of the element at `pos`, as dicom-parser keeps it (undefined for implicit VR). */
const vrAt = (b: Uint8Array, pos: number, explicit: boolean): string | undefined =>
  explicit ? String.fromCharCode(b[pos + 4]!, b[pos + 5]!) : undefined;

/** A fixed-length string as dicom-parser's readFixedString reads it: up to the first NUL. */
function fixedString(b: Uint8Array, at: number, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) {
    const c = b[at + i]!;
    if (c === 0) break;
    s += String.fromCharCode(c);
  }
  return s;
}

/**
 * Reads the header elements scan2mesh uses from the first bytes of a Part 10 file (`whole` when
 * they are the whole file). The data set it returns is dicom-parser's own DataSet over `bytes`.
 */
export function readHeaderTags(bytes: Uint8Array, whole: boolean): TagRead {
  const b = bytes;
  const len = b.length;
  if (len < 132 || b[128] !== 0x44 || b[129] !== 0x49 || b[130] !== 0x43 || b[131] !== 0x4d) return 'odd';
  const meta: Record<string, Element> = {};
  let pos = 132;
  // The meta group, explicit VR little endian, as dicom-parser's readPart10Header reads it.
  for (;;) {
    if (pos + 8 > len) return whole ? 'odd' : 'more';
    const group = u16(b, pos);
    if (group > 2) break;
    if (group < 2) return 'odd';
    const kind = VR_KIND[(b[pos + 4]! << 8) | b[pos + 5]!];
    if (kind !== SHORT && kind !== LONG) return 'odd';
    if (kind === LONG && pos + 12 > len) return whole ? 'odd' : 'more';
    const length = kind === SHORT ? u16(b, pos + 6) : u32(b, pos + 8);
    const dataOffset = pos + (kind === SHORT ? 8 : 12);
    if (length === UNDEFINED) return 'odd';
    if (dataOffset + length > len) return whole ? 'odd' : 'more';
    const key = WANTED.get(tagAt(b, pos));
    if (key) {
      const vr = String.fromCharCode(b[pos + 4]!, b[pos + 5]!);
      meta[key] = { tag: key, vr, length, dataOffset };
    }
    pos = dataOffset + length;
  }
  const start = pos;
  // readPart10Header reads the first element of the data set as explicit VR before it stops; what
  // that read would do beyond skipping a value is left to dicom-parser.
  const firstVr = fixedString(b, start + 4, 2);
  if (firstVr === 'SQ') return 'odd';
  if (['OB', 'OD', 'OL', 'OW', 'OF', 'UC', 'UR', 'UT', 'UN'].includes(firstVr)) {
    if (start + 12 > len) return whole ? 'odd' : 'more';
    if (u32(b, start + 8) === UNDEFINED) return 'odd';
  }
  const tsElement = meta.x00020010;
  if (!tsElement || tsElement.length === 0) return 'odd';
  const syntax = fixedString(b, tsElement.dataOffset, tsElement.length);
  if (syntax === DEFLATED_LE || syntax === EXPLICIT_BE) return 'odd';

  const walk: Walk = { b, explicit: syntax !== IMPLICIT_LE, found: {}, done: false };
  const end = dataSet(walk, start, len, 0);
  if (end === ODD) return 'odd';
  if (end === MORE || (!walk.done && !whole)) return whole ? 'odd' : 'more';
  // The meta header's elements win over the data set's, as in dicom-parser's parseDicom.
  const elements = Object.assign(walk.found, meta);
  const ds = new DataSetOf(dicomParser.littleEndianByteArrayParser, b, elements);
  const ts = (fixedText(ds, 'x00020010') ?? '').replace(/\0/g, '').trim();
  return {
    dataSet: ds,
    layout: 'part10',
    transferSyntaxUid: ts,
    transferSyntaxGuessed: false,
    fileOffset: 0,
  };
}

/** dicom-parser's DataSet class (its types declare only the interface). */
const DataSetOf = (
  dicomParser as unknown as {
    DataSet: new (
      parser: DataSet['byteArrayParser'],
      bytes: Uint8Array,
      elements: Record<string, Element>,
    ) => DataSet;
  }
).DataSet;

/**
 * Walks the elements from `pos` to `end` (top level: depth 0, up to the pixel data); returns where it
 * stopped, or MORE / ODD. With `untilItemEnd` it walks an item of undefined length, to its item
 * delimiter. One loop with the byte reads written out: the first drop of a session runs this before
 * the JIT has compiled it, and every call costs there.
 */
function dataSet(w: Walk, pos: number, end: number, depth: number, untilItemEnd = false): number {
  const b = w.b;
  const len = b.length;
  const explicit = w.explicit;
  while (untilItemEnd || pos < end) {
    if (pos + 8 > len) return MORE;
    const group = b[pos]! | (b[pos + 1]! << 8);
    const tag = group * 0x10000 + (b[pos + 2]! | (b[pos + 3]! << 8));
    if (untilItemEnd && tag === ITEM_END) return u32(b, pos + 4) === 0 ? pos + 8 : ODD;
    let length: number;
    let dataOffset: number;
    let kind = 0;
    if (explicit) {
      kind = VR_KIND[(b[pos + 4]! << 8) | b[pos + 5]!]!;
      if (kind === 0) return ODD;
      if (kind === SHORT) {
        length = b[pos + 6]! | (b[pos + 7]! << 8);
        dataOffset = pos + 8;
      } else {
        if (pos + 12 > len) return MORE;
        length = u32(b, pos + 8);
        dataOffset = pos + 12;
      }
    } else {
      length = u32(b, pos + 4);
      dataOffset = pos + 8;
    }
    if (depth === 0 && tag === PIXEL_DATA) {
      // Its header only: parsing stops here, as dicom-parser's untilTag does.
      const px: Element = { tag: 'x7fe00010', vr: vrAt(b, pos, explicit), length, dataOffset };
      if (length === UNDEFINED) px.hadUndefinedLength = true;
      w.found.x7fe00010 = px;
      w.done = true;
      return dataOffset;
    }
    let sequence = kind === SQ;
    if (!explicit) {
      // Implicit VR: dicom-parser takes a value that starts with an item (or ends at once) for a
      // sequence, except a private one of known length.
      if (dataOffset + 4 > len) return MORE;
      const first = tagAt(b, dataOffset);
      sequence = (first === ITEM || first === SEQUENCE_END) && (group % 2 === 0 || length === UNDEFINED);
    }
    const key = depth === 0 ? WANTED.get(tag) : undefined;
    if (sequence) {
      // The functional groups (and any wanted tag read as a sequence) need dicom-parser's items.
      if (key) return ODD;
      pos = sequenceItems(w, dataOffset, length, depth + 1);
      if (pos < 0) return pos;
      continue;
    }
    if (length === UNDEFINED) return ODD;
    const next = dataOffset + length;
    if (next > len) return MORE;
    if (!untilItemEnd && next > end) return ODD;
    if (key) w.found[key] = { tag: key, vr: vrAt(b, pos, explicit), length, dataOffset };
    pos = next;
  }
  // Past the end of an item: dicom-parser throws (explicit) or reads on (implicit).
  return pos === end ? pos : depth === 0 ? MORE : ODD;
}

function sequenceItems(w: Walk, pos: number, length: number, depth: number): number {
  if (depth > MAX_DEPTH) return ODD;
  const b = w.b;
  const len = b.length;
  if (length === UNDEFINED) {
    for (;;) {
      if (pos + 8 > len) return MORE;
      if (tagAt(b, pos) === SEQUENCE_END) return pos + 8;
      pos = item(w, pos, len, depth);
      if (pos < 0) return pos;
    }
  }
  const end = pos + length;
  if (end > len) return MORE;
  while (pos < end) {
    pos = item(w, pos, end, depth);
    if (pos < 0) return pos;
  }
  // Items overrunning their sequence: dicom-parser reads on from wherever they ended.
  return pos === end ? pos : ODD;
}

function item(w: Walk, pos: number, end: number, depth: number): number {
  const b = w.b;
  if (pos + 8 > b.length) return MORE;
  if (tagAt(b, pos) !== ITEM) return ODD;
  const length = u32(b, pos + 4);
  pos += 8;
  if (length !== UNDEFINED) {
    const itemEnd = pos + length;
    if (itemEnd > b.length) return MORE;
    if (itemEnd > end) return ODD;
    return dataSet(w, pos, itemEnd, depth);
  }
  // An item of undefined length ends with an item delimiter (FFFE,E00D) of length 0.
  return dataSet(w, pos, b.length, depth, true);
}
