import { isVr } from './dicom-sniff.js';
import { HEADER_TAGS, TAG } from './header-tags.js';
import { STABLE, Template, UNKNOWN } from './header-template.js';
import { latin1, TagTable } from './header-values.js';
import { DEFLATED_LE, EXPLICIT_BE, IMPLICIT_LE } from './transfer-syntax.js';

/**
 * A bounded, tag-only reader for the common case of a header: a Part 10 file in explicit or
 * implicit VR little endian whose elements are all well formed up to the pixel data. It walks the
 * elements once (skipping values, sequences included), notes where the values of the tags scan2mesh
 * reads (HEADER_TAGS) lie and never reads the pixel data. Its work is linear in the bytes it is
 * given, with nesting bounded, so one crafted header cannot hold a thread long.
 *
 * It is strict on purpose: whatever it is not sure dicom-parser would read the same way (big endian,
 * deflated, a missing transfer syntax, unknown VRs, undefined-length values other than sequences,
 * items that overrun their sequence, the Enhanced functional-group sequences, ...) it answers 'odd',
 * and the caller reads the file with dicom-parser instead, so results and messages stay
 * dicom-parser's. 'more' means the bytes end before the header does: read more of the file, or hand
 * it on.
 *
 * It makes no object per element and finds each wanted tag by walking the (sorted) list of them in
 * step with the (sorted) elements, with no lookup: the first drop of a session runs this before the
 * JIT has compiled it, where every allocation and call costs.
 */
export type TagScan = 'ok' | 'more' | 'odd';

const MORE = -1;
const ODD = -2;
const UNDEFINED = 0xffffffff;
const PIXEL_DATA = 0x7fe00010;
/** Sequences nest a few levels in real files; deeper is hostile or broken. */
const MAX_DEPTH = 16;
/** Offsets are kept as small integers; a header this long is dicom-parser's. */
const MAX_BYTES = 0x3fffffff;

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

/** The wanted tags as numbers, ascending (HEADER_TAGS is in tag order). */
const WANTED = Int32Array.from(HEADER_TAGS, (t) => parseInt(t.slice(1), 16));
for (let k = 1; k < WANTED.length; k++)
  if (!(WANTED[k]! > WANTED[k - 1]!)) throw new Error('HEADER_TAGS must be in ascending tag order');

/** The table being filled, and the top level's progress through the tags (see walk). */
let table = new TagTable();
let wanted = 0;
let lastTag = -1;
/** Where the pixel data element starts, once the walk met it. */
let pixelStart = -1;
/** The last header walked in full, and whether the walk now under way records itself into it. */
const template = new Template();
let recording = false;
/** walkLike's answer when the header is not laid out as the template: walk it in full instead. */
const RESYNC = -3;

const u32 = (b: Uint8Array, p: number): number =>
  (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16)) + b[p + 3]! * 0x1000000;

/**
 * Reads the header elements scan2mesh uses from the first bytes of a Part 10 file (`whole` when
 * they are the whole file) into `t`. On 'ok' the table describes `bytes`, transfer syntax included.
 */
export function scanHeader(bytes: Buffer, whole: boolean, t: TagTable): TagScan {
  const b = bytes;
  const len = b.length;
  if (len < 132 || b[128] !== 0x44 || b[129] !== 0x49 || b[130] !== 0x43 || b[131] !== 0x4d) return 'odd';
  if (len > MAX_BYTES) return 'odd';
  const short = whole ? 'odd' : 'more';
  let mediaAt = -1;
  let mediaLength = 0;
  let syntaxAt = -1;
  let syntaxLength = 0;
  let pos = 132;
  // The meta group, explicit VR little endian, as dicom-parser's readPart10Header reads it.
  for (;;) {
    if (pos + 8 > len) return short;
    const group = b[pos]! | (b[pos + 1]! << 8);
    if (group > 2) break;
    if (group < 2) return 'odd';
    const kind = VR_KIND[(b[pos + 4]! << 8) | b[pos + 5]!];
    if (kind !== SHORT && kind !== LONG) return 'odd';
    if (kind === LONG && pos + 12 > len) return short;
    const length = kind === SHORT ? b[pos + 6]! | (b[pos + 7]! << 8) : u32(b, pos + 8);
    const dataOffset = pos + (kind === SHORT ? 8 : 12);
    if (length === UNDEFINED) return 'odd';
    if (dataOffset + length > len) return short;
    const element = b[pos + 2]! | (b[pos + 3]! << 8);
    if (element === 0x0002) {
      mediaAt = dataOffset;
      mediaLength = length;
    } else if (element === 0x0010) {
      syntaxAt = dataOffset;
      syntaxLength = length;
    }
    pos = dataOffset + length;
  }
  const start = pos;
  // readPart10Header reads the first element of the data set as explicit VR before it stops; what
  // that read would do beyond skipping a value is left to dicom-parser.
  const firstKind = VR_KIND[(b[start + 4]! << 8) | b[start + 5]!];
  if (firstKind === SQ) return 'odd';
  if (firstKind === LONG) {
    if (start + 12 > len) return short;
    if (u32(b, start + 8) === UNDEFINED) return 'odd';
  }
  if (syntaxAt < 0 || syntaxLength === 0) return 'odd';
  // The transfer syntax as dicom-parser's readFixedString reads it: up to the first NUL.
  let syntaxEnd = syntaxAt;
  while (syntaxEnd < syntaxAt + syntaxLength && b[syntaxEnd] !== 0) syntaxEnd++;
  const syntax = latin1(b, syntaxAt, syntaxEnd);
  if (syntax === DEFLATED_LE || syntax === EXPLICIT_BE) return 'odd';
  // A body that names its VRs under a meta header saying implicit VR: read as pydicom reads it
  // (explicit), by dicom-file.ts.
  if (syntax === IMPLICIT_LE && isVr(b, start + 4)) return 'odd';

  const explicit = syntax !== IMPLICIT_LE;
  let end = template.valid && template.explicit === explicit ? walkLike(b, start, t) : RESYNC;
  if (end === RESYNC) {
    beginWalk(b, t);
    template.begin(explicit);
    recording = true;
    end = walk(b, start, len, 0, false, explicit, -1);
    recording = false;
    if (end >= 0 && t.pixelOffset >= 0 && template.end(b, pixelStart)) {
      t.isTemplate = true;
      // The template's own values are the ones later headers share: all of them are kept.
      for (let f = 0; f < template.found; f++) t.same[template.foundSlot[f]!] = 1;
    }
  }
  t.generation = template.generation;
  if (end === ODD) return 'odd';
  if (end === MORE || (t.pixelOffset < 0 && !whole)) return short;
  // The meta header's elements win over the data set's, as in dicom-parser's parseDicom.
  if (mediaAt >= 0) {
    t.offset[TAG.mediaStorageSopClass] = mediaAt;
    t.length[TAG.mediaStorageSopClass] = mediaLength;
    t.same[TAG.mediaStorageSopClass] = 0;
  }
  t.offset[TAG.transferSyntax] = syntaxAt;
  t.length[TAG.transferSyntax] = syntaxLength;
  t.same[TAG.transferSyntax] = 0;
  t.transferSyntaxUid = syntax.trim();
  return 'ok';
}

/** Readies the table and the walk's state for a header's data set. */
function beginWalk(b: Buffer, t: TagTable): void {
  t.clear(b);
  table = t;
  wanted = 0;
  lastTag = -1;
  pixelStart = -1;
}

/**
 * Walks a data set that starts at `pos` like the template's: stretches of elements that were the
 * same bytes last time are compared with the template's bytes in one call and, when still the same,
 * taken from it (their wanted values shifted to where they lie here); the other elements are walked
 * one by one, each checked to be the template's next element. The result is the full walk's: a
 * stretch of identical bytes, reached in the same state, is walked identically, and every other
 * element is walked by walk itself. RESYNC when the header is not laid out as the template.
 */
function walkLike(b: Buffer, pos: number, t: TagTable): number {
  beginWalk(b, t);
  const r = template;
  r.findRuns();
  const { top, tag, stable, runEnd, wantedAfter, foundElement, foundSlot, foundOffset, foundLength } = r;
  const count = r.count;
  const found = r.found;
  const len = b.length;
  const explicit = r.explicit;
  // Implicit VR peeks at 4 bytes past a short value (is it a sequence?): they must match too.
  const peek = explicit ? 0 : 4;
  let f = 0;
  let k = 0;
  while (k < count && pos < len) {
    let state = stable[k]!;
    if (state === STABLE) {
      const j = runEnd[k]!;
      const from = top[k]!;
      const size = top[j]! - from;
      const stretch = r.stretch(k, peek);
      if (pos + stretch.length <= len && stretch.compare(b, pos, pos + stretch.length) === 0) {
        const delta = pos - from;
        for (; f < found && foundElement[f]! < j; f++) {
          const slot = foundSlot[f]!;
          t.offset[slot] = foundOffset[f]! + delta;
          t.length[slot] = foundLength[f]!;
          t.same[slot] = 1;
        }
        pos += size;
        k = j;
        continue;
      }
      // Something in the stretch changed: its elements are looked at one by one.
      r.forget(k, j);
      state = UNKNOWN;
    }
    // The template's element k with a plain value (explicit VR, not a sequence) is read here in a
    // few steps, as walk would read it; anything else is walked by walk itself.
    let next = -1;
    if (explicit && pos + 12 <= len) {
      const kind = VR_KIND[(b[pos + 4]! << 8) | b[pos + 5]!];
      const at = pos + (kind === SHORT ? 8 : 12);
      if (
        (kind === SHORT || kind === LONG) &&
        (b[pos]! | (b[pos + 1]! << 8)) * 0x10000 + (b[pos + 2]! | (b[pos + 3]! << 8)) === tag[k]
      ) {
        const length = kind === SHORT ? b[pos + 6]! | (b[pos + 7]! << 8) : u32(b, pos + 8);
        if (length !== UNDEFINED && at + length <= len) {
          next = at + length;
          if (f < found && foundElement[f] === k) {
            const slot = foundSlot[f]!;
            t.offset[slot] = at;
            t.length[slot] = length;
          }
        }
      }
    }
    if (next < 0) {
      // The state the template's walk had before element k: the elements so far were the same tags.
      lastTag = k > 0 ? tag[k - 1]! : -1;
      wanted = k > 0 ? wantedAfter[k - 1]! : 0;
      next = walk(b, pos, len, 0, false, explicit, 1);
      if (next < 0 || t.pixelOffset >= 0) return next;
      if (lastTag !== tag[k]) return RESYNC;
    }
    // An element that changes from file to file (a UID, a position) is not compared again.
    let same = false;
    if (state === UNKNOWN) {
      same =
        next - pos === top[k + 1]! - top[k]! &&
        next + peek <= len &&
        b.compare(r.bytes, top[k]!, top[k + 1]! + peek, pos, next + peek) === 0;
      r.learn(k, same);
    }
    for (; f < found && foundElement[f]! <= k; f++) t.same[foundSlot[f]!] = same ? 1 : 0;
    pos = next;
    k++;
  }
  if (k === count && k > 0) {
    lastTag = tag[k - 1]!;
    wanted = wantedAfter[k - 1]!;
  }
  return walk(b, pos, len, 0, false, explicit, -1);
}

/**
 * Walks the elements from `pos` to `end` (top level: depth 0, up to the pixel data); returns where it
 * stopped, or MORE / ODD. With `untilItemEnd` it walks an item of undefined length, to its item
 * delimiter. At the top level it stops after `limit` elements (-1: no limit), and notes each element
 * in the template while `recording`.
 */
function walk(
  b: Buffer,
  pos: number,
  end: number,
  depth: number,
  untilItemEnd: boolean,
  explicit: boolean,
  limit: number,
): number {
  const len = b.length;
  let left = limit;
  while (untilItemEnd || pos < end) {
    if (left-- === 0) return pos;
    if (pos + 8 > len) return MORE;
    const group = b[pos]! | (b[pos + 1]! << 8);
    const element = b[pos + 2]! | (b[pos + 3]! << 8);
    if (untilItemEnd && group === 0xfffe && element === 0xe00d)
      return (b[pos + 4]! | b[pos + 5]! | b[pos + 6]! | b[pos + 7]!) === 0 ? pos + 8 : ODD;
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
    // At the top level: the tag's place in the table, found by walking HEADER_TAGS in step.
    let slot = -1;
    if (depth === 0) {
      const tag = group * 0x10000 + element;
      // A tag out of order (rare, and against the standard) sends the walk through the list again.
      if (tag < lastTag) wanted = 0;
      lastTag = tag;
      if (tag === PIXEL_DATA) {
        // Its header only: parsing stops here, as dicom-parser's untilTag does.
        pixelStart = pos;
        table.pixelOffset = dataOffset;
        table.pixelLength = length;
        table.pixelEncapsulated = length === UNDEFINED;
        return dataOffset;
      }
      while (wanted < WANTED.length && WANTED[wanted]! < tag) wanted++;
      if (wanted < WANTED.length && WANTED[wanted] === tag) slot = wanted;
      // A tag the app reads, met twice: dicom-parser's read refuses the file, in words (header-bounds.ts).
      if (slot >= 0 && table.offset[slot]! >= 0) return ODD;
      if (recording) template.add(pos, tag, wanted);
    }
    let sequence = kind === SQ;
    if (!explicit) {
      // Implicit VR: dicom-parser takes a value that starts with an item (or ends at once) for a
      // sequence, except a private one of known length.
      if (dataOffset + 4 > len) return MORE;
      const first = b[dataOffset + 2]! | (b[dataOffset + 3]! << 8);
      sequence =
        (b[dataOffset]! | (b[dataOffset + 1]! << 8)) === 0xfffe &&
        (first === 0xe000 || first === 0xe0dd) &&
        ((group & 1) === 0 || length === UNDEFINED);
    }
    if (sequence) {
      // The functional groups (and any wanted tag read as a sequence) need dicom-parser's items.
      if (slot >= 0) return ODD;
      pos = sequenceItems(b, dataOffset, length, depth + 1, explicit);
      if (pos < 0) return pos;
      continue;
    }
    if (length === UNDEFINED) return ODD;
    const next = dataOffset + length;
    if (next > len) return MORE;
    if (!untilItemEnd && next > end) return ODD;
    if (slot >= 0) {
      table.offset[slot] = dataOffset;
      table.length[slot] = length;
      table.same[slot] = 0;
      if (recording) template.addFound(slot, dataOffset, length);
    }
    pos = next;
  }
  // Past the end of an item: dicom-parser throws (explicit) or reads on (implicit).
  return pos === end ? pos : depth === 0 ? MORE : ODD;
}

function sequenceItems(b: Buffer, pos: number, length: number, depth: number, explicit: boolean): number {
  if (depth > MAX_DEPTH) return ODD;
  const len = b.length;
  if (length === UNDEFINED) {
    for (;;) {
      if (pos + 8 > len) return MORE;
      if (b[pos] === 0xfe && b[pos + 1] === 0xff && b[pos + 2] === 0xdd && b[pos + 3] === 0xe0)
        return pos + 8;
      pos = item(b, pos, len, depth, explicit);
      if (pos < 0) return pos;
    }
  }
  const end = pos + length;
  if (end > len) return MORE;
  while (pos < end) {
    pos = item(b, pos, end, depth, explicit);
    if (pos < 0) return pos;
  }
  // Items overrunning their sequence: dicom-parser reads on from wherever they ended.
  return pos === end ? pos : ODD;
}

function item(b: Buffer, pos: number, end: number, depth: number, explicit: boolean): number {
  const len = b.length;
  if (pos + 8 > len) return MORE;
  if (b[pos] !== 0xfe || b[pos + 1] !== 0xff || b[pos + 2] !== 0x00 || b[pos + 3] !== 0xe0) return ODD;
  const length = u32(b, pos + 4);
  pos += 8;
  if (length !== UNDEFINED) {
    const itemEnd = pos + length;
    if (itemEnd > len) return MORE;
    if (itemEnd > end) return ODD;
    return walk(b, pos, itemEnd, depth, false, explicit, -1);
  }
  // An item of undefined length ends with an item delimiter (FFFE,E00D) of length 0.
  return walk(b, pos, len, depth, true, explicit, -1);
}
