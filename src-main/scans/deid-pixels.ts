/**
 * Pixel data made to hold the image and nothing else, for de-identification:
 *
 * - Uncompressed: cut to rows x columns x samples x bits allocated x frames (bytes past the image
 *   can hold anything), and every bit outside Bits Stored / High Bit made what the stored value
 *   alone gives (zero, or the sign for signed data): overlays and text are hidden in those bits
 *   (retired Overlay Bit Position).
 * - Compressed: decoded and written again as plain pixels, as above (nativeFromEncapsulated).
 *
 * Whatever cannot be done is a refusal in words (PixelsRefused), never a guess.
 */
import type { DataSet } from 'dicom-parser';
import type { ParsedDicom } from './dicom-file.js';
import { decodeEncapsulatedFrame, PixelDecodeError } from './pixel-decode.js';
import { bitsAboveStored, PADDING_WIDER, WIDER } from './stored-bits.js';
import { overlayBitsOfDataSet } from './header-overlays.js';

export class PixelsRefused extends Error {}

export interface PixelFacts {
  rows: number;
  columns: number;
  samples: number;
  bitsAllocated: number;
  bitsStored: number;
  highBit: number;
  signed: boolean;
  frames: number;
  /** Pixel Padding Value and its Range Limit, as stored values, when declared. */
  padding?: [number, number];
  /** Bits above Bits Stored that hold overlays (retired Overlay Bit Position), cleared as the others. */
  overlays?: number;
}

/** The pixel description of a data set's top level; PixelsRefused when it is missing or does not add up. */
export function pixelFacts(ds: DataSet): PixelFacts {
  const us = (tag: string): number | undefined =>
    ds.elements[tag]?.length === 2 ? ds.uint16(tag) : undefined;
  const f: PixelFacts = {
    rows: us('x00280010') ?? 0,
    columns: us('x00280011') ?? 0,
    samples: us('x00280002') ?? 1,
    bitsAllocated: us('x00280100') ?? 0,
    bitsStored: us('x00280101') ?? 0,
    highBit: us('x00280102') ?? -1,
    signed: us('x00280103') === 1,
    frames: ds.elements.x00280008 ? Number(ds.string('x00280008') ?? '') : 1,
  };
  const padding = paddingOf(ds, f.signed);
  if (padding) f.padding = padding;
  const overlays = overlayBitsOfDataSet(ds, f);
  if (overlays) f.overlays = overlays;
  const lowBit = f.highBit - f.bitsStored + 1;
  if (
    f.rows <= 0 ||
    f.columns <= 0 ||
    ![1, 8, 16, 32].includes(f.bitsAllocated) ||
    f.bitsStored <= 0 ||
    lowBit < 0 ||
    f.highBit >= f.bitsAllocated ||
    !Number.isInteger(f.frames) ||
    f.frames < 1 ||
    f.samples < 1
  )
    throw new PixelsRefused(
      'has no valid image size or pixel format (Rows, Columns, Bits Allocated, Bits Stored, High Bit)',
    );
  return f;
}

const HOST_LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The declared padding values (Pixel Padding Value, up to its Range Limit), as stored values. */
function paddingOf(ds: DataSet, signed: boolean): [number, number] | undefined {
  const value = (tag: string): number | undefined => {
    // Its first value, as the header reader takes it (header-padding.ts).
    if ((ds.elements[tag]?.length ?? 0) < 2) return undefined;
    return signed ? ds.int16(tag) : ds.uint16(tag);
  };
  const v = value('x00280120');
  if (v === undefined) return undefined;
  const limit = value('x00280121') ?? v;
  return [Math.min(v, limit), Math.max(v, limit)];
}

/**
 * Refused where the samples are wider than their Bits Stored (stored-bits.ts): clearing the bits above
 * would change their values (enamel or metal past 4095 made air), not hide what they carry. True when
 * only the declared padding value is wider: it is kept whole, as the app reads it.
 */
function refuseWide(a: Uint8Array | Uint16Array | Uint32Array, f: PixelFacts): boolean {
  const signedView =
    a instanceof Uint16Array
      ? new Int16Array(a.buffer, a.byteOffset, a.length)
      : a instanceof Uint32Array
        ? new Int32Array(a.buffer, a.byteOffset, a.length)
        : new Int8Array(a.buffer, a.byteOffset, a.length);
  const fit = bitsAboveStored(
    f.signed ? signedView : a,
    a.length,
    f.bitsStored,
    f.signed,
    f.padding,
    f.overlays,
  );
  if (fit === WIDER)
    throw new PixelsRefused(
      `has image values wider than its Bits Stored (${f.bitsStored} bits): clearing the bits above, as de-identification does, would change them (dense tissue or metal to other values), and keeping them could keep what they hide`,
    );
  return fit === PADDING_WIDER;
}

/** A function giving each sample as its stored bits alone make it, for 8, 16 or 32 bits allocated. */
function canonical(f: PixelFacts): ((x: number) => number) | undefined {
  if (f.bitsStored === f.bitsAllocated || f.bitsAllocated === 1) return undefined;
  const lowBit = f.highBit - f.bitsStored + 1;
  const field = (2 ** f.bitsStored - 1) * 2 ** lowBit;
  if (f.signed && lowBit === 0) {
    const s = 32 - f.bitsStored;
    return (x) => (x << s) >> s; // written back into an unsigned array: the sign fills the top bits
  }
  return (x) => (x & field) >>> 0;
}

/** Uncompressed pixel data: the image's exact bytes (even length), unused bits made canonical. */
export function cleanNativePixels(value: Uint8Array, f: PixelFacts, littleEndian: boolean): Buffer {
  const bits = f.rows * f.columns * f.samples * f.frames * f.bitsAllocated;
  const length = Math.ceil(bits / 8);
  if (value.length < length) throw new PixelsRefused('has pixel data shorter than its image');
  const out = Buffer.allocUnsafeSlow(length + (length % 2));
  out.set(value.subarray(0, length));
  if (length % 2) out[length] = 0;
  const canonicalOf = canonical(f);
  if (!canonicalOf) return out;
  let fix = canonicalOf;
  const width = f.bitsAllocated / 8;
  const count = length / width;
  const lowBit = f.highBit - f.bitsStored + 1;
  if (lowBit === 0 && f.samples === 1 && [1, 2, 4].includes(width)) {
    // Read in this machine's order: a copy, swapped, for big-endian files.
    let b: Uint8Array = out.subarray(0, length);
    if (width > 1 && littleEndian !== HOST_LITTLE) {
      const swapped = Buffer.from(new Uint8Array(b));
      b = width === 2 ? swapped.swap16() : swapped.swap32();
    }
    const keepPad = refuseWide(
      width === 1
        ? b
        : width === 2
          ? new Uint16Array(b.buffer, b.byteOffset, count)
          : new Uint32Array(b.buffer, b.byteOffset, count),
      f,
    );
    if (keepPad) {
      // The padding value as this buffer holds it (unsigned), kept whole; the rest made canonical.
      const pad = (f.padding![0] >>> 0) & (width === 4 ? 0xffffffff : 2 ** f.bitsAllocated - 1);
      fix = (x) => (x >>> 0 === pad >>> 0 ? x : canonicalOf(x));
    }
  }
  if (width === 1) {
    for (let i = 0; i < count; i++) out[i] = fix(out[i]!);
  } else if (littleEndian === HOST_LITTLE && fix === canonicalOf) {
    const a =
      width === 2
        ? new Uint16Array(out.buffer, out.byteOffset, count)
        : new Uint32Array(out.buffer, out.byteOffset, count);
    if (f.signed && lowBit === 0) {
      const shift = 32 - f.bitsStored;
      for (let i = 0; i < count; i++) a[i] = (a[i]! << shift) >> shift;
    } else {
      // The common case (unsigned CT, 12 of 16 bits) as a plain loop: it runs over every sample.
      const field = (2 ** f.bitsStored - 1) * 2 ** lowBit;
      for (let i = 0; i < count; i++) a[i] = a[i]! & field;
    }
  } else {
    const view = new DataView(out.buffer, out.byteOffset, length);
    for (let i = 0; i < count; i++) {
      if (width === 2) view.setUint16(i * 2, fix(view.getUint16(i * 2, littleEndian)), littleEndian);
      else view.setUint32(i * 4, fix(view.getUint32(i * 4, littleEndian)) >>> 0, littleEndian);
    }
  }
  return out;
}

/**
 * Compressed pixel data decoded, frame by frame, and written again as plain pixels (explicit VR
 * little endian), their unused bits cleared. A codestream can carry text in many places besides
 * its comment segments (kept tables, marker segments of every kind, bytes after the coded data),
 * and decoders skip what they do not need: a cleaner that walks markers cannot vouch for what it
 * keeps (an audit found text in a dozen places after one did, and a crash in re-encoding real RLE
 * slices). Decoding keeps the image and nothing else, with the decoders and bounds that read the
 * image for the app. The pixels are the ones any reader decodes; only the file grows.
 */
export function nativeFromEncapsulated(parsed: ParsedDicom, f: PixelFacts): Buffer {
  if (f.samples !== 1)
    throw new PixelsRefused(
      'has compressed colour images, which scan2mesh does not write again de-identified',
    );
  const width = f.bitsAllocated / 8;
  if (![1, 2, 4].includes(width))
    throw new PixelsRefused(
      `has compressed images of ${f.bitsAllocated} bits per sample, which scan2mesh cannot decode`,
    );
  const frameBytes = f.rows * f.columns * width;
  if (frameBytes * f.frames > 0xfffffffe)
    throw new PixelsRefused('has an image too large to write again uncompressed');
  const out = Buffer.allocUnsafeSlow(frameBytes * f.frames);
  for (let k = 0; k < f.frames; k++) {
    let samples: Uint8Array;
    try {
      samples = decodeEncapsulatedFrame(parsed, k, f.frames, f, width, {
        samplesPerPixel: f.samples,
        bitsStored: f.bitsStored,
        bitsAllocated: f.bitsAllocated,
      });
    } catch (e) {
      if (e instanceof PixelDecodeError)
        throw new PixelsRefused(
          `has a compressed image that cannot be decoded to write it again without what it may hide: ${e.message}`,
        );
      throw e;
    }
    if (samples.length !== frameBytes)
      throw new PixelsRefused('has a compressed image that is not the size its header gives');
    out.set(samples, k * frameBytes);
  }
  return cleanNativePixels(out, f, true);
}
