/**
 * Copying a frame's stored samples into an int16 volume plane: the inner loop of reading a CT scan,
 * kept free of any import so that worker threads can run it without loading the DICOM readers.
 */

export type StoredValues = Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array;

/** One plane of an int16 volume made from one frame's samples in memory: out[at + i] = sample i + shift. */
export interface PlaneCopy {
  /** The frame's samples, little endian, `bits` each. */
  bytes: Uint8Array;
  bits: number;
  signed: boolean;
  /** Bits Stored: the meaningful low bits of each sample (signed ones sign-extended from there). */
  storedBits: number;
  /** The Rescale Intercept, an integer (the slope is 1). */
  shift: number;
  /** Where the plane starts in the volume, and its samples. */
  at: number;
  n: number;
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
  // some 40 ms of each worker's share of a 140-slice scan).
  const reuse: CopyBuffer = {};
  for (const p of planes) {
    const stored = typed(p.bytes, p.bits, p.signed, reuse);
    if (!writeShifted(stored, p.shift, out, p.at, p.n, p.storedBits, p.signed)) return false;
  }
  return true;
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
  let lo = Infinity;
  let hi = -Infinity;
  const all = storedBits >= stored.BYTES_PER_ELEMENT * 8;
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
