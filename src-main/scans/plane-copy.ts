import { closeSync } from 'node:fs';
import { openScanFileSync } from './scan-file-open.js';
import { readRegionInto, type FileRegion } from './file-region.js';
import {
  bitsAboveStored,
  keepPadding,
  PADDING_WIDER,
  WIDER,
  widerThanStored,
  type StoredValues,
} from './stored-bits.js';

/**
 * Copying a frame's stored samples into an int16 volume plane: the inner loop of reading a CT scan,
 * kept free of the DICOM readers (file-region.ts needs only node:fs) so that worker threads can run
 * it without loading them.
 */

export type { StoredValues } from './stored-bits.js';

/** One plane of an int16 volume made from one frame's samples in memory: out[at + i] = sample i + shift. */
export interface PlaneCopy {
  /**
   * The frame's samples, little endian, `bits` each: in memory, or where they lie in a file (a stored
   * zip entry's), read from there by whoever copies them.
   */
  bytes: Uint8Array | FileRegion;
  bits: number;
  signed: boolean;
  /** Bits Stored: the meaningful low bits of each sample (signed ones sign-extended from there). */
  storedBits: number;
  /** The Rescale Intercept, an integer (the slope is 1). */
  shift: number;
  /** Where the plane starts in the volume, and its samples. */
  at: number;
  n: number;
  /** The file's name, for a refusal that names it; its declared padding values (stored values). */
  name: string;
  padding?: readonly [number, number];
  /** Bits above Bits Stored that hold an overlay. */
  overlays?: number;
}

/** A buffer a caller lends to typed() for its copies, grown as needed and reused from call to call. */
export interface CopyBuffer {
  bytes?: Uint8Array;
}

/**
 * Stored values over raw little-endian sample bytes: a view when aligned, else a copy (into `reuse`
 * when given: a caller reading many frames then copies into one buffer, not a fresh one each).
 */
export function typed(bytes: Uint8Array, bits: number, signed: boolean, reuse?: CopyBuffer): StoredValues {
  const width = bits / 8;
  // Typed views need their offset aligned to the element size; copy when it is not.
  const b = bytes.byteOffset % width === 0 ? bytes : copyOf(bytes, reuse);
  const n = b.byteLength / width;
  if (bits === 8) return signed ? new Int8Array(b.buffer, b.byteOffset, n) : b;
  if (bits === 16)
    return signed ? new Int16Array(b.buffer, b.byteOffset, n) : new Uint16Array(b.buffer, b.byteOffset, n);
  return signed ? new Int32Array(b.buffer, b.byteOffset, n) : new Uint32Array(b.buffer, b.byteOffset, n);
}

function copyOf(bytes: Uint8Array, reuse?: CopyBuffer): Uint8Array {
  if (!reuse) return new Uint8Array(bytes);
  if (!reuse.bytes || reuse.bytes.byteLength < bytes.byteLength)
    reuse.bytes = new Uint8Array(bytes.byteLength);
  reuse.bytes.set(bytes);
  return reuse.bytes.subarray(0, bytes.byteLength);
}

/** Copies the planes into `out`; false when a value leaves the int16 range (the volume is then read as floats). */
export function copyPlanes(planes: readonly PlaneCopy[], out: Int16Array): boolean {
  // A stored zip entry's data starts at any offset, so about half the planes of an upload lie at an odd
  // one: their copies share one buffer (a fresh one per plane cost an allocation and its page faults:
  // some 40 ms of each worker's share of a 140-slice scan). Planes in a file are read into another
  // one, reused the same way: it stays in the cache while its values go to the volume.
  const reuse: CopyBuffer = {};
  const read: CopyBuffer = {};
  // The planes of an upload lie in one file: opened once for all of them.
  const open = new Map<string, number>();
  try {
    for (const p of planes) {
      let raw: Uint8Array;
      if (p.bytes instanceof Uint8Array) raw = p.bytes;
      else {
        let fd = open.get(p.bytes.file);
        if (fd === undefined) open.set(p.bytes.file, (fd = openScanFileSync(p.bytes.file)));
        raw = regionBytes(fd, p.bytes, read);
      }
      const stored = typed(raw, p.bits, p.signed, reuse);
      const fit = bitsAboveStored(stored, p.n, p.storedBits, p.signed, p.padding, p.overlays);
      if (fit === WIDER) throw widerThanStored(p.name, p.storedBits);
      if (!writeShifted(stored, p.shift, out, p.at, p.n, p.storedBits, p.signed)) return false;
      // The padding value wider than the stored bits, read whole: the padding the header names.
      if (fit === PADDING_WIDER && !keepPadding(stored, p.n, p.padding![0], out, p.at, 1, p.shift))
        return false;
    }
    return true;
  } finally {
    for (const fd of open.values()) closeSync(fd);
  }
}

/** A region's bytes read into `buf` (grown as needed): an aligned view, valid until the next read. */
function regionBytes(fd: number, r: FileRegion, buf: CopyBuffer): Uint8Array {
  if (!buf.bytes || buf.bytes.byteLength < r.size) buf.bytes = new Uint8Array(r.size);
  readRegionInto(fd, r, 0, r.size, buf.bytes);
  return buf.bytes.subarray(0, r.size);
}

/**
 * out[at + i] = (stored[i] in its `storedBits` low bits) + shift for n values; false when a value
 * leaves the int16 range. The range is checked on the stored values (min and max), so the loops do
 * integer work only; each case has its own loop, so that the common one does nothing else.
 */
export function writeShifted(
  stored: StoredValues,
  shift: number,
  out: Int16Array,
  at: number,
  n: number,
  storedBits = 32,
  signed = false,
): boolean {
  const s = shift | 0;
  const all = storedBits >= stored.BYTES_PER_ELEMENT * 8;
  // 16-bit samples that are int16 values (signed ones, or unsigned ones of at most 15 stored bits):
  // two at a time (the common CT cases; the loops below cost about twice as much per sample).
  if (
    stored.BYTES_PER_ELEMENT === 2 &&
    (signed ? all : storedBits <= 15) &&
    s === shift &&
    s >= -32768 &&
    s <= 32767
  ) {
    const ok = shiftPairs(
      stored as Int16Array | Uint16Array,
      all ? 0xffff : 2 ** storedBits - 1,
      s,
      out,
      at,
      n,
    );
    if (ok !== undefined) return ok;
  }
  let lo = Infinity;
  let hi = -Infinity;
  if (all) {
    for (let i = 0; i < n; i++) {
      const v = stored[i] as number;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
      out[at + i] = v + s;
    }
  } else if (signed) {
    // Sign-extended from the top stored bit (the bits above it may hold overlays or garbage).
    const up = 32 - storedBits;
    for (let i = 0; i < n; i++) {
      const v = ((stored[i] as number) << up) >> up;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
      out[at + i] = v + s;
    }
  } else {
    const mask = 2 ** storedBits - 1;
    for (let i = 0; i < n; i++) {
      const v = (stored[i] as number) & mask;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
      out[at + i] = v + s;
    }
  }
  return n === 0 || (lo + s >= -32768 && hi + s <= 32767);
}

/**
 * out[at + i] = (stored[i] & mask) + s, two samples per 32-bit word, for samples that are int16 values
 * after the mask: each 16-bit half is added on its own (its top bit kept out of the carry and put
 * back by exclusive or), and a half whose sign the addition changed against both operands' has left
 * the int16 range (signed overflow). Undefined when the arrays are not aligned for 32-bit words.
 */
function shiftPairs(
  stored: Int16Array | Uint16Array,
  mask: number,
  s: number,
  out: Int16Array,
  at: number,
  n: number,
): boolean | undefined {
  const outByte = out.byteOffset + at * 2;
  if (stored.byteOffset % 4 !== 0 || outByte % 4 !== 0) return undefined;
  const pairs = n >>> 1;
  const src = new Uint32Array(stored.buffer, stored.byteOffset, pairs);
  const dst = new Uint32Array(out.buffer, outByte, pairs);
  const m = mask | (mask << 16);
  const k = (s & 0xffff) | ((s & 0xffff) << 16);
  const kLow = k & 0x7fff7fff;
  const kTop = k & 0x80008000;
  let over = 0;
  for (let i = 0; i < pairs; i++) {
    const x = (src[i] as number) & m;
    const r = (((x & 0x7fff7fff) + kLow) ^ ((x ^ kTop) & 0x80008000)) | 0;
    over |= ~(x ^ k) & (x ^ r);
    dst[i] = r;
  }
  let ok = (over & 0x80008000) === 0;
  if (n % 2 === 1) {
    const raw = stored[n - 1] as number;
    // A signed sample keeps all its bits (and its sign); an unsigned one is masked.
    const w = (stored instanceof Int16Array ? raw : raw & mask) + s;
    ok &&= w >= -32768 && w <= 32767;
    out[at + n - 1] = w;
  }
  return ok;
}
