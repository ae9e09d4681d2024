/**
 * Pixel data made to hold the image and nothing else, for de-identification:
 *
 * - Uncompressed: cut to rows x columns x samples x bits allocated x frames (bytes past the image
 *   can hold anything), and every bit outside Bits Stored / High Bit made what the stored value
 *   alone gives (zero, or the sign for signed data): overlays and text are hidden in those bits
 *   (retired Overlay Bit Position).
 * - Compressed: each frame's codestream without comments, application segments or trailing bytes
 *   (deid-codestream.ts), one fragment per frame behind a fresh Basic Offset Table. RLE frames are
 *   decoded and encoded again, their unused bits cleared on the way. A JPEG or JPEG 2000 frame whose
 *   precision goes beyond Bits Stored is decoded to check those bits are unused.
 *
 * Whatever cannot be done is a refusal in words (PixelsRefused), never a guess.
 */
import type { DataSet, Element } from 'dicom-parser';
import { Decoder as JpegLosslessDecoder } from 'jpeg-lossless-decoder-js';
import { decodeWithWasm, wasmCodecFor } from './codecs.js';
import { cleanJ2k, cleanJpeg, CodestreamRefused, encodeRle, type CleanFrame } from './deid-codestream.js';
import { decodeRleFrame } from './rle.js';
import { JPEG_LOSSLESS_P14, JPEG_LOSSLESS_SV1, RLE_LOSSLESS, transferSyntax } from './transfer-syntax.js';

export class PixelsRefused extends Error {}

const JPEG = ['1.2.840.10008.1.2.4.50', '1.2.840.10008.1.2.4.51', JPEG_LOSSLESS_P14, JPEG_LOSSLESS_SV1];
const JPEG_LS = ['1.2.840.10008.1.2.4.80', '1.2.840.10008.1.2.4.81'];
const J2K = [
  '1.2.840.10008.1.2.4.90',
  '1.2.840.10008.1.2.4.91',
  '1.2.840.10008.1.2.4.201',
  '1.2.840.10008.1.2.4.202',
  '1.2.840.10008.1.2.4.203',
];

export interface PixelFacts {
  rows: number;
  columns: number;
  samples: number;
  bitsAllocated: number;
  bitsStored: number;
  highBit: number;
  signed: boolean;
  frames: number;
}

/** The pixel description of a data set's top level; PixelsRefused when it is missing or does not add up. */
export function pixelFacts(ds: DataSet): PixelFacts {
  const us = (tag: string): number | undefined =>
    ds.elements[tag]?.length === 2 ? ds.uint16(tag) : undefined;
  const f = {
    rows: us('x00280010') ?? 0,
    columns: us('x00280011') ?? 0,
    samples: us('x00280002') ?? 1,
    bitsAllocated: us('x00280100') ?? 0,
    bitsStored: us('x00280101') ?? 0,
    highBit: us('x00280102') ?? -1,
    signed: us('x00280103') === 1,
    frames: ds.elements.x00280008 ? Number(ds.string('x00280008') ?? '') : 1,
  };
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
  const fix = canonical(f);
  if (!fix) return out;
  const width = f.bitsAllocated / 8;
  const count = length / width;
  if (width === 1) {
    for (let i = 0; i < count; i++) out[i] = fix(out[i]!);
  } else if (littleEndian === (new Uint8Array(new Uint16Array([1]).buffer)[0] === 1)) {
    const a =
      width === 2
        ? new Uint16Array(out.buffer, out.byteOffset, count)
        : new Uint32Array(out.buffer, out.byteOffset, count);
    const lowBit = f.highBit - f.bitsStored + 1;
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
 * Encapsulated pixel data (its items and the sequence delimiter, as they follow the element's
 * header) rebuilt from cleaned frames: a Basic Offset Table, then one even fragment per frame.
 */
export function cleanEncapsulated(ds: DataSet, el: Element, tsUid: string, f: PixelFacts): Buffer {
  const frames = frameBytes(ds, el, f.frames, tsUid);
  const cleaned = frames.map((frame) => {
    try {
      return cleanFrame(frame, tsUid, f);
    } catch (e) {
      if (e instanceof CodestreamRefused)
        throw new PixelsRefused(
          `has a compressed image that cannot be checked for hidden text (${e.message})`,
        );
      throw e;
    }
  });
  const item = (length: number): Buffer => {
    const b = Buffer.alloc(8);
    b.writeUInt16LE(0xfffe, 0);
    b.writeUInt16LE(0xe000, 2);
    b.writeUInt32LE(length, 4);
    return b;
  };
  const table = Buffer.alloc(4 * cleaned.length);
  const parts: Buffer[] = [item(table.length), table];
  let offset = 0;
  cleaned.forEach((c, k) => {
    const body = c.length % 2 ? Buffer.concat([c, Buffer.alloc(1)]) : c;
    table.writeUInt32LE(offset, 4 * k);
    parts.push(item(body.length), body);
    offset += 8 + body.length;
  });
  if (offset > 0xffffffff) throw new PixelsRefused('has a compressed image too large to write again');
  const end = Buffer.alloc(8);
  end.writeUInt16LE(0xfffe, 0);
  end.writeUInt16LE(0xe0dd, 2);
  parts.push(end);
  return Buffer.concat(parts);
}

/** Each frame's codestream, its fragments joined. */
function frameBytes(ds: DataSet, el: Element, frames: number, tsUid: string): Uint8Array[] {
  const fragments = el.fragments ?? [];
  if (fragments.length === 0) throw new PixelsRefused('has compressed pixel data that holds no image');
  const bytes = fragments.map((fr) => ds.byteArray.subarray(fr.position, fr.position + fr.length));
  let starts: number[];
  const table = el.basicOffsetTable ?? [];
  if (frames === 1) starts = [0];
  else if (fragments.length === frames) starts = fragments.map((_, k) => k);
  else if (table.length === frames) starts = table.map((o) => fragments.findIndex((fr) => fr.offset === o));
  else {
    // No offset table: a frame starts with the fragment that starts a codestream.
    const soi = J2K.includes(tsUid) ? [0xff, 0x4f] : [0xff, 0xd8];
    starts = bytes.flatMap((b, k) => (b[0] === soi[0] && b[1] === soi[1] ? [k] : []));
  }
  if (starts.length !== frames || starts[0] !== 0 || starts.some((s, k) => k > 0 && s <= starts[k - 1]!))
    throw new PixelsRefused('has compressed frames that cannot be told apart');
  return starts.map((s, k) => Buffer.concat(bytes.slice(s, starts[k + 1] ?? bytes.length)));
}

function cleanFrame(frame: Uint8Array, tsUid: string, f: PixelFacts): Buffer {
  const width = f.bitsAllocated / 8;
  const fix = canonical(f);
  if (tsUid === RLE_LOSSLESS) {
    if (f.samples !== 1 || ![1, 2, 4].includes(width))
      throw new PixelsRefused('has an RLE image that is not one grey sample per pixel');
    const samples = decodeRleFrame(frame, width, f.rows * f.columns);
    if (fix) canonicalInPlace(samples, width, fix);
    return encodeRle(samples, width);
  }
  let clean: CleanFrame;
  if (JPEG.includes(tsUid)) clean = cleanJpeg(frame, false);
  else if (JPEG_LS.includes(tsUid)) clean = cleanJpeg(frame, true);
  else if (J2K.includes(tsUid)) clean = cleanJ2k(frame);
  else
    throw new PixelsRefused(
      `has pixels compressed as ${transferSyntax(tsUid).name}, which scan2mesh cannot check for hidden text`,
    );
  const lowBit = f.highBit - f.bitsStored + 1;
  if (fix && (lowBit > 0 || clean.precision > f.bitsStored)) checkDecoded(clean.bytes, tsUid, f, fix);
  return clean.bytes;
}

/** Decodes a frame whose codestream could use bits outside Bits Stored, and refuses it if it does. */
function checkDecoded(frame: Uint8Array, tsUid: string, f: PixelFacts, fix: (x: number) => number): void {
  const width = f.bitsAllocated / 8;
  let samples: Uint8Array;
  try {
    if (tsUid === JPEG_LOSSLESS_P14 || tsUid === JPEG_LOSSLESS_SV1) {
      const copy = new Uint8Array(frame);
      const out = new JpegLosslessDecoder().decode(copy.buffer, 0, copy.byteLength, width);
      samples = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    } else if (wasmCodecFor(tsUid)) {
      samples = decodeWithWasm(tsUid, frame, width, f);
    } else throw new Error('no decoder');
  } catch {
    throw new PixelsRefused(
      'has a compressed image that may use bits outside Bits Stored, and it cannot be decoded here to check them',
    );
  }
  const copy = Uint8Array.from(samples);
  canonicalInPlace(copy, width, fix);
  if (!Buffer.from(copy).equals(Buffer.from(samples)))
    throw new PixelsRefused(
      'has a compressed image that uses bits outside Bits Stored, where overlays or text can hide',
    );
}

function canonicalInPlace(samples: Uint8Array, width: number, fix: (x: number) => number): void {
  const view = new DataView(samples.buffer, samples.byteOffset, samples.byteLength);
  const n = Math.floor(samples.length / width);
  for (let i = 0; i < n; i++) {
    if (width === 1) samples[i] = fix(samples[i]!);
    else if (width === 2) view.setUint16(2 * i, fix(view.getUint16(2 * i, true)), true);
    else view.setUint32(4 * i, fix(view.getUint32(4 * i, true)) >>> 0, true);
  }
}
