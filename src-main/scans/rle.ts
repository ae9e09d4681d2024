/**
 * DICOM RLE Lossless decoding (PS3.5 Annex G). A frame is a 64-byte header (segment count, then up to
 * 15 segment offsets) followed by PackBits-coded segments; segment s holds byte plane s, most
 * significant byte first, of every pixel (one sample per pixel here).
 */
/** Bytes an RLE segment may decode to past its frame: padding some encoders write (pydicom warns of it). */
const RLE_PADDING_ALLOWED = 16;

/**
 * Why a frame's 64-byte RLE header cannot be decoded to `pixels` samples of `bytesPerSample` bytes
 * from a frame of `frameLength` bytes, in words; undefined when it can. Read from the header alone,
 * so inspect can say it before a job (a review: such frames were called fit, and only a job refused them).
 */
export function rleHeaderProblem(
  header: Uint8Array,
  frameLength: number,
  bytesPerSample: number,
  pixels: number,
): string | undefined {
  if (header.length < 64 || frameLength < 64) return 'its RLE frame is shorter than its 64-byte header';
  const view = new DataView(header.buffer, header.byteOffset, 64);
  const segments = view.getUint32(0, true);
  if (segments !== bytesPerSample)
    return `its RLE frame has ${segments} segment${segments === 1 ? '' : 's'} where ${bytesPerSample} (one per byte of a sample) are expected`;
  for (let s = 0; s < segments; s++) {
    const start = view.getUint32(4 + s * 4, true);
    const end = s + 1 < segments ? view.getUint32(8 + s * 4, true) : frameLength;
    if (start < 64 || start > frameLength || end <= start || end > frameLength)
      return 'its RLE segment offsets point outside the frame or out of order';
    // PackBits expands at most 64-fold (two bytes replicate one into 128): a header that claims more
    // pixels than the segments can hold is refused before the output is allocated.
    if (pixels > (end - start) * 64) return `its RLE segment ${s + 1} is too short for the image`;
  }
  return undefined;
}

export function decodeRleFrame(src: Uint8Array, bytesPerSample: number, pixels: number): Uint8Array {
  const problem = rleHeaderProblem(src, src.length, bytesPerSample, pixels);
  if (problem) throw new Error(problem);
  // Output in little-endian sample order: segment 0 (most significant) goes to the last byte.
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  const out = new Uint8Array(pixels * bytesPerSample);
  for (let s = 0; s < bytesPerSample; s++) {
    const start = view.getUint32(4 + s * 4, true);
    const end = s + 1 < bytesPerSample ? view.getUint32(8 + s * 4, true) : src.length;
    const plane = bytesPerSample - 1 - s;
    let i = start;
    // Decoded bytes of the segment, written while the frame has room for them, counted to its end.
    let p = 0;
    while (i < end) {
      const n = src[i++]!;
      if (n < 128) {
        // Literal run of n + 1 bytes.
        const count = Math.min(n + 1, end - i);
        const write = Math.min(count, Math.max(0, pixels - p));
        for (let k = 0; k < write; k++) out[(p + k) * bytesPerSample + plane] = src[i + k]!;
        i += n + 1;
        p += count;
      } else if (n > 128) {
        // Replicate the next byte 257 - n times (a header with no byte after it adds nothing).
        if (i >= end) break;
        const count = 257 - n;
        const write = Math.min(count, Math.max(0, pixels - p));
        const v = src[i++]!;
        for (let k = 0; k < write; k++) out[(p + k) * bytesPerSample + plane] = v;
        p += count;
      }
      // n === 128 is a no-op by definition.
    }
    if (p < pixels) throw new Error('RLE segment ends before the frame is complete');
    // A whole segment decodes to the frame's bytes; a run header damaged on the way decodes the rest
    // into other runs, and its bytes then end elsewhere (a review's one flipped header: 31,820 of
    // 65,536 pixels wrong, silently). A few bytes over are an encoder's padding, as pydicom allows.
    if (p > pixels + RLE_PADDING_ALLOWED)
      throw new Error(`RLE segment ${s + 1} decodes to ${p - pixels} bytes more than the frame holds`);
  }
  return out;
}
