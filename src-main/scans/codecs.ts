import type { WasmImageDecoder } from '@cornerstonejs/codec-charls/decodewasmjs';
import { codestreamSize, hasEndMarker, type CodestreamSize } from './codestream-size.js';
import { j2kProblemIn, type J2kExpect } from './j2k-codestream.js';

/**
 * Transfer syntaxes decoded by a WASM codec library: JPEG-LS (CharLS), JPEG 2000 (OpenJPEG), and
 * lossy JPEG of 8 bits (libjpeg-turbo): Baseline, and Extended when it holds 8-bit samples.
 */
const JPEG_LS = ['1.2.840.10008.1.2.4.80', '1.2.840.10008.1.2.4.81'];
const JPEG_2000 = ['1.2.840.10008.1.2.4.90', '1.2.840.10008.1.2.4.91'];
const JPEG_LOSSY = ['1.2.840.10008.1.2.4.50', '1.2.840.10008.1.2.4.51'];

type CodecKind = 'jpeg-ls' | 'jpeg-2000' | 'jpeg-lossy';

/** Why a frame was refused before decoding: its codestream is not what the DICOM header says. */
export class CodestreamMismatch extends Error {}

/** A codestream whose structure does not fit its header or the DICOM header (j2k-codestream.ts). */
export class CodestreamStructure extends CodestreamMismatch {}

/** A codestream cut short: it has no end marker (see hasEndMarker). */
export class CodestreamTruncated extends Error {}

/** Throws CodestreamTruncated for a codestream without its end marker. */
export function checkEndMarker(encoded: Uint8Array): void {
  if (!hasEndMarker(encoded)) throw new CodestreamTruncated(`no end marker in its ${encoded.length} bytes`);
}

/** A codestream a codec here cannot decode although the transfer syntax is known (12-bit lossy JPEG). */
export class CodestreamUnsupported extends Error {}

type Factory = () => WasmImageDecoder;
const ready = new Map<string, Factory>();
const loading = new Map<string, Promise<Factory | undefined>>();

export function wasmCodecFor(uid: string): CodecKind | undefined {
  if (JPEG_LS.includes(uid)) return 'jpeg-ls';
  if (JPEG_2000.includes(uid)) return 'jpeg-2000';
  if (JPEG_LOSSY.includes(uid)) return 'jpeg-lossy';
  return undefined;
}

/**
 * Loads the codec a transfer syntax needs (once per process; about 0.1 s each). Resolves false
 * when the codec library is missing or fails to start, so callers can refuse the file plainly.
 */
export async function prepareCodec(uid: string): Promise<boolean> {
  const kind = wasmCodecFor(uid);
  if (!kind) return true;
  if (ready.has(kind)) return true;
  let p = loading.get(kind);
  if (!p) {
    p = loadCodec(kind).catch(() => undefined);
    loading.set(kind, p);
  }
  const factory = await p;
  if (factory) ready.set(kind, factory);
  return factory !== undefined;
}

/**
 * The C libraries narrate their work on stdout ("[INFO] Start to read j2k main header"): kept quiet,
 * but for the errors. OpenJPEG reports a tile it cannot decode ("[ERROR] Tile part length size
 * inconsistent with stream length", a codestream cut short with its end marker put back) and returns
 * the image all the same, partly decoded: what it said during a decode makes that decode fail.
 */
const reported: string[] = [];
const keep = (line: string): void => {
  if (/\[ERROR\]/.test(line) && reported.length < 8)
    reported.push(line.replace(/^\s*\[ERROR\]\s*/, '').trim());
};
const quiet = { print: keep, printErr: keep };

async function loadCodec(kind: CodecKind): Promise<Factory> {
  if (kind === 'jpeg-ls') {
    const m = await (await import('@cornerstonejs/codec-charls/decodewasmjs')).default(quiet);
    return () => new m.JpegLSDecoder();
  }
  if (kind === 'jpeg-lossy') {
    const m = await (await import('@cornerstonejs/codec-libjpeg-turbo-8bit/decodewasmjs')).default(quiet);
    return () => new m.JPEGDecoder();
  }
  const m = await (await import('@cornerstonejs/codec-openjpeg/decodewasmjs')).default(quiet);
  return () => new m.J2KDecoder();
}

/**
 * The codestream's own image size, which must be the DICOM header's (one grey component): decoders
 * allocate what the codestream says. Throws CodestreamMismatch otherwise.
 */
export function checkDeclaredSize(
  encoded: Uint8Array,
  size: { rows: number; columns: number },
): CodestreamSize {
  const declared = codestreamSize(encoded);
  if (!declared) throw new CodestreamMismatch('no frame header found in the codestream');
  if (declared.width !== size.columns || declared.height !== size.rows || declared.components !== 1) {
    throw new CodestreamMismatch(
      `codestream declares ${declared.width} x ${declared.height} x ${declared.components}, header ${size.columns} x ${size.rows} x 1`,
    );
  }
  return declared;
}

/**
 * Decodes one encoded frame with a prepared codec into little-endian samples of `bytesPerSample`.
 * The codestream's own size is checked against the DICOM header first (CodestreamMismatch), so a
 * codec never allocates for a size the file cannot hold. Throws when the codec is not prepared or
 * the frame does not decode to the expected size.
 */
export function decodeWithWasm(
  uid: string,
  encoded: Uint8Array,
  bytesPerSample: number,
  size: { rows: number; columns: number },
  expect?: J2kExpect,
): Uint8Array {
  const kind = wasmCodecFor(uid);
  const factory = kind ? ready.get(kind) : undefined;
  if (!factory) throw new Error('the decoder for this compression is not loaded');
  const declared = checkDeclaredSize(encoded, size);
  if (kind === 'jpeg-lossy' && declared.precision !== 8)
    throw new CodestreamUnsupported(`lossy JPEG of ${declared.precision} bits`);
  checkEndMarker(encoded);
  // OpenJPEG decodes a codestream whose header does not fit its data without a word (j2k-codestream.ts).
  const structure = kind === 'jpeg-2000' && expect ? j2kProblemIn(encoded, expect) : undefined;
  if (structure) throw new CodestreamStructure(structure);
  const pixels = size.rows * size.columns;
  const decoder = factory();
  try {
    decoder.getEncodedBuffer(encoded.length).set(encoded);
    reported.length = 0;
    decoder.decode();
    if (reported.length > 0) throw new Error(`the decoder reports: ${reported.join('; ')}`);
    const info = decoder.getFrameInfo();
    if (info.componentCount !== 1) throw new Error(`the image has ${info.componentCount} colour components`);
    const decoded = decoder.getDecodedBuffer();
    // An 8-bit codestream in 16-bit pixel data (allowed by the standard): widen each sample.
    if (decoded.length === pixels && bytesPerSample === 2) {
      const wide = new Uint8Array(pixels * 2);
      for (let i = 0; i < pixels; i++) wide[2 * i] = decoded[i]!;
      return wide;
    }
    const expected = pixels * bytesPerSample;
    if (decoded.length !== expected) throw new Error(`decoded ${decoded.length} bytes, expected ${expected}`);
    // Copy out of the WASM heap, which the next decode reuses.
    return new Uint8Array(decoded);
  } finally {
    decoder.delete();
  }
}
