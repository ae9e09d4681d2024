// The package ships JavaScript without its declarations; this is the part scan2mesh uses.
declare module 'jpeg-lossless-decoder-js' {
  export class Decoder {
    constructor(buffer?: ArrayBuffer | null, numBytes?: number);
    /** Decodes one JPEG Lossless (process 14) image: 8-bit samples as Uint8Array, else Uint16Array. */
    decode(
      buffer?: ArrayBuffer,
      offset?: number,
      length?: number,
      numBytes?: number,
    ): Uint8Array | Uint16Array;
    /** Where decoding stopped: the next sample's column and row, of the frame's xDim x yDim. */
    xLoc: number;
    yLoc: number;
    yDim: number;
    /** The codestream as read, with how far (index, bytes from its start) decoding read it. */
    stream: { index: number } | null;
  }
}
