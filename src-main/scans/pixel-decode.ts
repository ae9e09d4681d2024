import type { DataSet, Element } from 'dicom-parser';
import type { Decoder as JpegLosslessDecoder } from 'jpeg-lossless-decoder-js';
import { lazyLibrary } from '../platform/lazy-library.js';
import { dicomParserLib } from './dicom-parser-lib.js';
import { PIXEL_DATA, type ParsedDicom } from './dicom-file.js';
import { uncompressedFrameBytes, type DicomHeader } from './header-fields.js';
import {
  checkDeclaredSize,
  checkEndMarker,
  CodestreamMismatch,
  CodestreamStructure,
  CodestreamTruncated,
  CodestreamUnsupported,
  decodeWithWasm,
  wasmCodecFor,
} from './codecs.js';
import { readsAsGrey } from './pixel-format.js';
import type { J2kExpect } from './j2k-codestream.js';
import { typed, type StoredValues } from './plane-copy.js';

export type { StoredValues } from './plane-copy.js';
import { decodeRleFrame } from './rle.js';
import { restartInterval } from './codestream-size.js';
import { JPEG_LOSSLESS_P14, JPEG_LOSSLESS_SV1, RLE_LOSSLESS, transferSyntax } from './transfer-syntax.js';

/**
 * The JPEG Lossless decoder, loaded on first use: intake loads this module (to compare copies of an
 * image stored in two encodings) but rarely decodes, and `scan2mesh inspect` paid ~1.3 ms to load it.
 */
const lossless = lazyLibrary<{ Decoder: typeof JpegLosslessDecoder }>('jpeg-lossless-decoder-js');

/** Why a frame's pixels could not be had; the message is for people, `kind` for callers. */
export class PixelDecodeError extends Error {
  constructor(
    readonly kind: 'unsupported' | 'truncated' | 'corrupt',
    message: string,
    /** A codec's or parser's own text, for the log only. */
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'PixelDecodeError';
  }
}

/** Checks what every decoder here assumes: one grey sample (or a luminance) of 8, 16 or 32 bits. */
export function checkPixelFormat(h: DicomHeader): void {
  if (!readsAsGrey(h)) {
    throw new PixelDecodeError(
      'unsupported',
      `it is a colour image (${h.photometric || 'RGB'}), not a grey-scale scan`,
    );
  }
  if (![8, 16, 32].includes(h.bitsAllocated)) {
    throw new PixelDecodeError(
      'unsupported',
      `it stores ${h.bitsAllocated} bits per pixel, which scan2mesh cannot read`,
    );
  }
  if (h.rows <= 0 || h.columns <= 0)
    throw new PixelDecodeError('corrupt', 'it has no image size (rows x columns)');
}

/**
 * The stored values of one frame (before rescale and before masking to Bits Stored), in a fresh or
 * aligned array of rows * columns samples.
 */
export function frameStoredValues(parsed: ParsedDicom, h: DicomHeader, frameIndex: number): StoredValues {
  checkPixelFormat(h);
  const ds = parsed.dataSet;
  const el = ds.elements[PIXEL_DATA];
  if (!el) throw new PixelDecodeError('corrupt', 'it has no pixel data');
  const ts = transferSyntax(parsed.transferSyntaxUid);
  const bytesPerSample = h.bitsAllocated / 8;
  const frameBytes = uncompressedFrameBytes(h);
  let bytes: Uint8Array;
  if (!ts.compressed && !(el.encapsulatedPixelData ?? false)) {
    const start = el.dataOffset + frameIndex * frameBytes;
    if (start + frameBytes > ds.byteArray.length || start + frameBytes > el.dataOffset + el.length) {
      throw new PixelDecodeError('truncated', 'the file ends before its pixel data does (it is truncated)');
    }
    bytes = ds.byteArray.subarray(start, start + frameBytes);
    if (h.samplesPerPixel === 3) bytes = luminance(bytes, h, bytesPerSample);
    if (!ts.littleEndian && bytesPerSample > 1) bytes = swapBytes(bytes, bytesPerSample);
  } else {
    const encoded = encapsulatedFrame(parsed, frameIndex, h.numberOfFrames);
    bytes = decodeCompressed(parsed.transferSyntaxUid, encoded, bytesPerSample, h, {
      samplesPerPixel: h.samplesPerPixel,
      bitsStored: h.bitsStored,
      bitsAllocated: h.bitsAllocated,
    });
  }
  return typed(bytes, h.bitsAllocated, h.pixelRepresentation === 1);
}

/**
 * One frame of encapsulated (compressed) pixel data decoded to its samples, rows x columns of
 * `bytesPerSample` bytes in the machine's (little-endian) order, by the same frame finding and
 * decoders as frameStoredValues, with their bounds (the codestream's size must be the header's).
 * PixelDecodeError, in words, otherwise. The wasm codecs must have been prepared (prepareCodec).
 */
export function decodeEncapsulatedFrame(
  parsed: ParsedDicom,
  frameIndex: number,
  frames: number,
  size: { rows: number; columns: number },
  bytesPerSample: number,
  expect?: J2kExpect,
): Uint8Array {
  const encoded = encapsulatedFrame(parsed, frameIndex, frames);
  return decodeCompressed(parsed.transferSyntaxUid, encoded, bytesPerSample, size, expect);
}

/** Each frame's first fragment and fragment count, [first0, count0, first1, ...], by pixel data element. */
const spansByElement = new WeakMap<object, Int32Array>();

/**
 * Which fragments make each frame, found once per file: from the Basic Offset Table, or without one
 * from the JPEG markers that end each frame. dicom-parser finds a frame's fragments by a search over
 * all of them, once per frame: a 6 MB file of 5,000 frames in 60 fragments each took 35 s to read.
 * Throws (a string, as dicom-parser does) when a frame starts at no fragment or has none.
 */
function frameSpans(ds: DataSet, el: Element, frames: number): Int32Array {
  const known = spansByElement.get(el);
  if (known) return known;
  const fragments = el.fragments ?? [];
  const table = el.basicOffsetTable ?? [];
  // No offset table and several fragments per frame: JPEG frames can be found by their markers.
  const offsets = table.length === frames ? table : dicomParserLib().createJPEGBasicOffsetTable(ds, el);
  if (offsets.length !== frames) throw `${offsets.length} images found in the fragments, ${frames} expected`;
  const fragmentAt = new Map<number, number>();
  fragments.forEach((f, i) => fragmentAt.set(f.offset, i));
  const spans = new Int32Array(2 * frames);
  for (let k = 0; k < frames; k++) {
    const first = fragmentAt.get(offsets[k]!);
    if (first === undefined) throw `image ${k + 1} starts at no fragment`;
    spans[2 * k] = first;
  }
  for (let k = 0; k < frames; k++) {
    const count = (k + 1 < frames ? spans[2 * k + 2]! : fragments.length) - spans[2 * k]!;
    if (count < 1) throw `image ${k + 1} has no fragment of its own`;
    spans[2 * k + 1] = count;
  }
  spansByElement.set(el, spans);
  return spans;
}

function encapsulatedFrame(parsed: ParsedDicom, frameIndex: number, frames: number): Uint8Array {
  const ds = parsed.dataSet;
  const el = ds.elements[PIXEL_DATA]!;
  const fragments = el.fragments ?? [];
  if (fragments.length === 0)
    throw new PixelDecodeError('corrupt', 'its compressed pixel data holds no fragments');
  try {
    if (frames === 1)
      return dicomParserLib().readEncapsulatedPixelDataFromFragments(ds, el, 0, fragments.length);
    if (fragments.length === frames)
      return dicomParserLib().readEncapsulatedPixelDataFromFragments(ds, el, frameIndex, 1);
    const spans = frameSpans(ds, el, frames);
    return dicomParserLib().readEncapsulatedPixelDataFromFragments(
      ds,
      el,
      spans[2 * frameIndex]!,
      spans[2 * frameIndex + 1]!,
    );
  } catch (e) {
    throw new PixelDecodeError(
      'corrupt',
      `its compressed image ${frameIndex + 1} cannot be found in the file (the data is damaged)`,
      typeof e === 'string' ? e : e instanceof Error ? e.message : String(e),
    );
  }
}

/**
 * The JPEG Lossless decoder returns whatever it has when its codestream ends early or goes on: a
 * codestream cut short (its end marker put back) left most rows as decoded from bytes past its end,
 * and one whose coded data was lost to zeros decoded every sample from a third of it, both without a
 * word, and a job made a mesh of them. A whole codestream decodes every row and reads its coded data
 * to the end: the entropy-coded segment fills its last byte with one bits (ITU-T T.81 F.1.2.3), and
 * the decoder reads a byte or two ahead into the end marker, behind any fill bytes before it.
 */
function checkLosslessRead(decoder: JpegLosslessDecoder, codestream: Uint8Array): void {
  if (decoder.yLoc < decoder.yDim)
    throw new Error(
      `decoding stopped at row ${decoder.yLoc + 1} of ${decoder.yDim}: the coded data ends early`,
    );
  let end = codestream.length - 2;
  while (end > 0 && !(codestream[end] === 0xff && codestream[end + 1] === 0xd9)) end--;
  while (end > 0 && codestream[end - 1] === 0xff) end--;
  const read = decoder.stream?.index ?? end;
  if (read > end + LOSSLESS_READ_AHEAD)
    throw new Error(`its samples take ${read - end} bytes more than its coded data holds: it is cut short`);
  if (end - read > LOSSLESS_READ_AHEAD)
    throw new Error(
      `its samples were all decoded ${end - read} bytes before its coded data ends: the data is not what was encoded`,
    );
}

/**
 * A copy of a JPEG Lossless codestream with two zero bytes before its end marker. The decoder reads a
 * byte ahead for each Huffman code; where the last sample's code reached into the end marker it
 * returned the marker instead and left that sample out (a review: 2 of 99 slices of the real head
 * that dcmtk compressed, each decoded exactly by dcmtk, were one value short). The zeros are read
 * after the last code, never as part of it: every sample decodes from the codestream's own bits.
 */
function withLosslessTail(codestream: Uint8Array): Uint8Array<ArrayBuffer> {
  let end = codestream.length - 2;
  while (end > 0 && !(codestream[end] === 0xff && codestream[end + 1] === 0xd9)) end--;
  const copy = new Uint8Array(new ArrayBuffer(end + 4));
  copy.set(codestream.subarray(0, end));
  copy[end + 2] = 0xff;
  copy[end + 3] = 0xd9;
  return copy;
}

/** Bytes a whole lossless codestream's read may end from its end marker, either way (see checkLosslessRead). */
const LOSSLESS_READ_AHEAD = 4;

function decodeCompressed(
  uid: string,
  encoded: Uint8Array,
  bytesPerSample: number,
  size: { rows: number; columns: number },
  expect: J2kExpect | undefined,
): Uint8Array {
  const pixels = size.rows * size.columns;
  try {
    if (uid === RLE_LOSSLESS) return decodeRleFrame(encoded, bytesPerSample, pixels);
    if (uid === JPEG_LOSSLESS_P14 || uid === JPEG_LOSSLESS_SV1) {
      // The decoder allocates what the codestream says: check that against the header first.
      checkDeclaredSize(encoded, size);
      checkEndMarker(encoded);
      if (restartInterval(encoded) > 0)
        throw new PixelDecodeError(
          'unsupported',
          `its pixels are compressed as ${transferSyntax(uid).name} with restart markers, which scan2mesh cannot decode exactly (its decoder reads the last value before each restart wrongly)`,
        );
      // A copy: the decoder wants an ArrayBuffer of its own (Buffer.slice would share the file's).
      const copy = withLosslessTail(encoded);
      const decoder = new (lossless().Decoder)();
      const out = decoder.decode(copy.buffer, 0, copy.byteLength, bytesPerSample);
      if (out.length !== pixels) throw new Error(`decoded ${out.length} samples, expected ${pixels}`);
      checkLosslessRead(decoder, copy);
      return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    }
    if (wasmCodecFor(uid)) return decodeWithWasm(uid, encoded, bytesPerSample, size, expect);
  } catch (e) {
    if (e instanceof PixelDecodeError) throw e;
    if (e instanceof CodestreamTruncated)
      throw new PixelDecodeError(
        'truncated',
        'its compressed image is cut short (its codestream has no end marker): the file is incomplete or damaged',
        e.message,
      );
    if (e instanceof CodestreamUnsupported) {
      throw new PixelDecodeError(
        'unsupported',
        `its pixels are compressed as ${transferSyntax(uid).name} with more than 8 bits per sample, which scan2mesh cannot decode`,
        e.message,
      );
    }
    throw new PixelDecodeError(
      'corrupt',
      e instanceof CodestreamStructure
        ? `${e.message}, so it would decode to a wrong image: the image data is damaged; export the scan again from the scanner or PACS`
        : e instanceof CodestreamMismatch
          ? 'its compressed image does not have the size its header gives (the image data is damaged)'
          : 'its compressed pixels cannot be decoded (the image data is damaged or not what its header says)',
      e instanceof Error ? e.message : String(e),
    );
  }
  throw new PixelDecodeError(
    'unsupported',
    `its pixels are compressed as ${transferSyntax(uid).name}, which scan2mesh cannot decode on this computer`,
  );
}

/**
 * The Y samples of an uncompressed YBR frame, which is what a grey image stored as colour holds
 * (Cb = Cr = the middle value). YBR_FULL_422 stores Y1 Y2 Cb Cr for each pair of pixels; YBR_FULL
 * stores Y Cb Cr per pixel, or three planes (Planar Configuration 1).
 */
function luminance(src: Uint8Array, h: DicomHeader, width: number): Uint8Array {
  const pixels = h.rows * h.columns;
  const out = new Uint8Array(pixels * width);
  const at =
    h.photometric === 'YBR_FULL_422'
      ? (i: number): number => ((i >> 1) * 4 + (i & 1)) * width
      : h.planarConfiguration === 1
        ? (i: number): number => i * width
        : (i: number): number => i * 3 * width;
  for (let i = 0; i < pixels; i++) {
    const from = at(i);
    for (let k = 0; k < width; k++) out[i * width + k] = src[from + k]!;
  }
  return out;
}

function swapBytes(src: Uint8Array, width: number): Uint8Array {
  const out = new Uint8Array(src.length);
  for (let i = 0; i < src.length; i += width) {
    for (let k = 0; k < width; k++) out[i + k] = src[i + width - 1 - k]!;
  }
  return out;
}

/** Maps a stored value to its meaningful bits (Bits Stored), sign-extending signed data. */
export function storedValueMapper(
  bitsStored: number,
  bitsAllocated: number,
  signed: boolean,
): (v: number) => number {
  if (bitsStored >= bitsAllocated || bitsStored <= 0 || bitsStored >= 32) return (v) => v;
  const shift = 32 - bitsStored;
  if (signed) return (v) => (v << shift) >> shift;
  const mask = 2 ** bitsStored - 1;
  return (v) => v & mask;
}
