import { basename } from 'node:path';
import { readRegion, type FileRegion } from './file-region.js';
import { uncompressedFrameBytes } from './header-fields.js';
import { storedValueMapper } from './pixel-decode.js';
import { typed, writeShifted, type PlaneCopy, type StoredValues } from './plane-copy.js';
import {
  bitsAboveStored,
  keepPadding,
  PADDING_WIDER,
  STORED_FIT,
  WIDER,
  widerThanStored,
} from './stored-bits.js';
import type { FrameRef } from './slice-layout.js';
import { transferSyntax } from './transfer-syntax.js';

/**
 * From a frame's stored values to the volume's grey values (Rescale Slope and Intercept, Bits Stored),
 * and a frame's stored values read from bytes in memory without a parse.
 */

/** A rescaled value outside the int16 range: the volume is read again as floats. */
export class Int16Overflow extends Error {}

/** The Explicit VR header of Pixel Data: tag (7FE0,0010) little endian, then VR OW or OB, two zero bytes. */
const PIXEL_TAG = [0xe0, 0x7f, 0x10, 0x00];

/**
 * A frame's stored values read straight from the file's bytes, where its header found the pixel
 * data, without parsing the file again: for the common uncompressed, little-endian, one-sample file
 * whose bytes are at hand (the local engine holds an upload's slices in memory). Undefined when any
 * of that does not hold, or when the bytes before that place are not the Pixel Data element the header
 * saw (its offset was then not one in the file): the caller parses the file instead.
 */
export function storedValuesInPlace(bytes: Uint8Array, ref: FrameRef): StoredValues | undefined {
  const h = ref.header;
  const raw = storedBytesInPlace(bytes, ref);
  return raw && typed(raw, h.bitsAllocated, h.pixelRepresentation === 1);
}

/** The bytes of storedValuesInPlace, as they lie in `bytes` (a view of them, aligned or not). */
function storedBytesInPlace(bytes: Uint8Array, ref: FrameRef): Uint8Array | undefined {
  const span = frameSpan(ref, bytes.length, (from, length) => bytes.subarray(from, from + length));
  return span && bytes.subarray(span.start, span.start + span.length);
}

/**
 * Where one frame's stored samples lie in its file, under storedValuesInPlace's conditions, checked
 * against the file's `size` and the element header before the pixel data (`bytesAt` gives a few
 * bytes of the file). Undefined when they do not hold.
 */
function frameSpan(
  ref: FrameRef,
  size: number,
  bytesAt: (from: number, length: number) => Uint8Array,
): { start: number; length: number } | undefined {
  const h = ref.header;
  const px = h.pixelData;
  if (!px || px.encapsulated || px.missingBytes > 0 || h.samplesPerPixel !== 1) return undefined;
  const ts = transferSyntax(h.transferSyntaxUid);
  if (ts.compressed || ts.deflated || !ts.littleEndian) return undefined;
  if (h.bitsAllocated !== 8 && h.bitsAllocated !== 16 && h.bitsAllocated !== 32) return undefined;
  const at = px.offset;
  // Explicit VR: tag, VR (OW or OB), two zero bytes, 4-byte length; implicit: tag, 4-byte length.
  const lead = ts.explicitVr ? 12 : 8;
  if (at - lead < 0 || at > size) return undefined;
  const b = bytesAt(at - lead, lead);
  for (let i = 0; i < 4; i++) if (b[i] !== PIXEL_TAG[i]) return undefined;
  if (ts.explicitVr) {
    const vr = String.fromCharCode(b[4]!, b[5]!);
    if ((vr !== 'OW' && vr !== 'OB') || b[6] !== 0 || b[7] !== 0) return undefined;
  }
  const l = lead - 4;
  const length = (b[l]! | (b[l + 1]! << 8) | (b[l + 2]! << 16)) + b[l + 3]! * 0x1000000;
  if (length !== px.length) return undefined;
  const frameBytes = uncompressedFrameBytes(h);
  const start = at + ref.frameIndex * frameBytes;
  if (start + frameBytes > at + px.length || start + frameBytes > size) return undefined;
  return { start, length: frameBytes };
}

/** Rescaled values of one frame's stored values into `out` from `at`. */
export function writeStored(
  stored: StoredValues,
  ref: FrameRef,
  out: Int16Array | Float32Array,
  at: number,
  asInt16: boolean,
): void {
  const h = ref.header;
  const n = h.rows * h.columns;
  const map = storedValueMapper(h.bitsStored, h.bitsAllocated, h.pixelRepresentation === 1);
  const { slope, intercept } = ref.info;
  const identity = h.bitsStored >= h.bitsAllocated;
  const fit = identity
    ? STORED_FIT
    : bitsAboveStored(
        stored,
        n,
        storedBitsOf(h),
        h.pixelRepresentation === 1,
        h.pixelPadding,
        overlayMask(h),
      );
  if (fit === WIDER) throw widerThanStored(basename(h.path), h.bitsStored);
  if (asInt16 && slope === 1) {
    // The common CT case (slope 1, integer intercept): integer work per voxel.
    const signed = h.pixelRepresentation === 1;
    if (!writeShifted(stored, intercept, out as Int16Array, at, n, storedBitsOf(h), signed))
      throw new Int16Overflow();
  } else if (asInt16) {
    let min = 0;
    let max = 0;
    for (let i = 0; i < n; i++) {
      const v = (identity ? stored[i]! : map(stored[i]!)) * slope + intercept;
      if (v < min) min = v;
      else if (v > max) max = v;
      out[at + i] = v;
    }
    if (min < -32768 || max > 32767) throw new Int16Overflow();
  } else {
    for (let i = 0; i < n; i++) out[at + i] = (identity ? stored[i]! : map(stored[i]!)) * slope + intercept;
  }
  // The padding value wider than the stored bits, read whole: the padding the header names.
  if (fit === PADDING_WIDER && !keepPadding(stored, n, h.pixelPadding![0], out, at, slope, intercept))
    throw new Int16Overflow();
}

/**
 * The copy that makes a volume plane from a frame whose samples are in memory in place (see
 * storedValuesInPlace) and need only integer work: slope 1, an integer intercept. Undefined otherwise.
 */
export function planeCopyInPlace(bytes: Uint8Array, ref: FrameRef, at: number): PlaneCopy | undefined {
  const raw = integerShift(ref) && storedBytesInPlace(bytes, ref);
  return raw ? planeCopy(raw, ref, at) : undefined;
}

/**
 * planeCopyInPlace for a file that lies in another one (a stored zip entry): the copy reads the
 * frame's samples from there itself. Undefined when the file is not laid out for it, or cannot be
 * read (the caller then parses it, and says what is wrong with it).
 */
export function planeCopyInRegion(region: FileRegion, ref: FrameRef, at: number): PlaneCopy | undefined {
  if (!integerShift(ref)) return undefined;
  let span;
  try {
    span = frameSpan(ref, region.size, (from, length) => readRegion(region, from, length));
  } catch {
    return undefined;
  }
  if (!span) return undefined;
  const samples = { file: region.file, offset: region.offset + span.start, size: span.length };
  return planeCopy(samples, ref, at);
}

const integerShift = (ref: FrameRef): boolean => ref.info.slope === 1 && Number.isInteger(ref.info.intercept);

function planeCopy(bytes: Uint8Array | FileRegion, ref: FrameRef, at: number): PlaneCopy {
  const h = ref.header;
  return {
    bytes,
    bits: h.bitsAllocated,
    signed: h.pixelRepresentation === 1,
    storedBits: storedBitsOf(h),
    shift: ref.info.intercept,
    at,
    n: h.rows * h.columns,
    name: basename(h.path),
    ...(h.pixelPadding ? { padding: h.pixelPadding } : {}),
    ...(h.overlayBits ? { overlays: h.overlayBits } : {}),
  };
}

/** The bits of each sample that hold overlays (none, or those of their Overlay Bit Positions). */
const overlayMask = (h: { overlayBits?: number }): number => h.overlayBits ?? 0;

/** Bits Stored as the sample mask uses it: a value outside 1..31 means every bit (storedValueMapper). */
function storedBitsOf(h: { bitsStored: number }): number {
  return h.bitsStored > 0 && h.bitsStored < 32 ? h.bitsStored : 32;
}
