import type { WasmImageDecoder } from '@cornerstonejs/codec-charls/decodewasmjs';

/** Transfer syntaxes decoded by a WASM codec library: JPEG-LS (CharLS) and JPEG 2000 (OpenJPEG). */
const JPEG_LS = ['1.2.840.10008.1.2.4.80', '1.2.840.10008.1.2.4.81'];
const JPEG_2000 = ['1.2.840.10008.1.2.4.90', '1.2.840.10008.1.2.4.91'];

type Factory = () => WasmImageDecoder;
const ready = new Map<string, Factory>();
const loading = new Map<string, Promise<Factory | undefined>>();

export function wasmCodecFor(uid: string): 'jpeg-ls' | 'jpeg-2000' | undefined {
  if (JPEG_LS.includes(uid)) return 'jpeg-ls';
  if (JPEG_2000.includes(uid)) return 'jpeg-2000';
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

// The C libraries narrate their work on stdout ("[INFO] Start to read j2k main header"): keep it quiet.
const quiet = { print: (): void => {}, printErr: (): void => {} };

async function loadCodec(kind: 'jpeg-ls' | 'jpeg-2000'): Promise<Factory> {
  if (kind === 'jpeg-ls') {
    const m = await (await import('@cornerstonejs/codec-charls/decodewasmjs')).default(quiet);
    return () => new m.JpegLSDecoder();
  }
  const m = await (await import('@cornerstonejs/codec-openjpeg/decodewasmjs')).default(quiet);
  return () => new m.J2KDecoder();
}

/**
 * Decodes one encoded frame with a prepared codec into little-endian samples of `bytesPerSample`.
 * Throws when the codec is not prepared or the frame does not decode to the expected size.
 */
export function decodeWithWasm(
  uid: string,
  encoded: Uint8Array,
  bytesPerSample: number,
  pixels: number,
): Uint8Array {
  const kind = wasmCodecFor(uid);
  const factory = kind ? ready.get(kind) : undefined;
  if (!factory) throw new Error('the decoder for this compression is not loaded');
  const decoder = factory();
  try {
    decoder.getEncodedBuffer(encoded.length).set(encoded);
    decoder.decode();
    const info = decoder.getFrameInfo();
    if (info.componentCount !== 1) throw new Error(`the image has ${info.componentCount} colour components`);
    const decoded = decoder.getDecodedBuffer();
    const expected = pixels * bytesPerSample;
    if (decoded.length !== expected) throw new Error(`decoded ${decoded.length} bytes, expected ${expected}`);
    // Copy out of the WASM heap, which the next decode reuses.
    return new Uint8Array(decoded);
  } finally {
    decoder.delete();
  }
}
