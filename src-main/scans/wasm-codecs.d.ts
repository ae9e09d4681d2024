// The cornerstone codec packages ship Emscripten modules without declarations; this is the part
// scan2mesh uses: the decoders of JPEG-LS (CharLS) and JPEG 2000 (OpenJPEG) images.
declare module '@cornerstonejs/codec-charls/decodewasmjs' {
  /** The shape both decoders share. */
  export interface WasmImageDecoder {
    /** A buffer inside the WASM heap, of the given size, to copy the encoded frame into. */
    getEncodedBuffer(length: number): Uint8Array;
    decode(): void;
    getFrameInfo(): {
      width: number;
      height: number;
      bitsPerSample: number;
      componentCount: number;
      isSigned?: boolean;
    };
    /** The decoded samples inside the WASM heap (valid until the next decode or delete()). */
    getDecodedBuffer(): Uint8Array;
    delete(): void;
  }
  /** Emscripten module options; print and printErr receive what the C library writes to stdout/stderr. */
  export interface ModuleOptions {
    print?: (text: string) => void;
    printErr?: (text: string) => void;
  }
  const init: (opts?: ModuleOptions) => Promise<{ JpegLSDecoder: new () => WasmImageDecoder }>;
  export default init;
}
declare module '@cornerstonejs/codec-openjpeg/decodewasmjs' {
  import type { ModuleOptions, WasmImageDecoder } from '@cornerstonejs/codec-charls/decodewasmjs';
  const init: (opts?: ModuleOptions) => Promise<{ J2KDecoder: new () => WasmImageDecoder }>;
  export default init;
}
declare module '@cornerstonejs/codec-libjpeg-turbo-8bit/decodewasmjs' {
  import type { ModuleOptions, WasmImageDecoder } from '@cornerstonejs/codec-charls/decodewasmjs';
  const init: (opts?: ModuleOptions) => Promise<{ JPEGDecoder: new () => WasmImageDecoder }>;
  export default init;
}
