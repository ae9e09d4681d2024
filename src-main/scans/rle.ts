/**
 * DICOM RLE Lossless decoding (PS3.5 Annex G). A frame is a 64-byte header (segment count, then up to
 * 15 segment offsets) followed by PackBits-coded segments; segment s holds byte plane s, most
 * significant byte first, of every pixel (one sample per pixel here).
 */
export function decodeRleFrame(src: Uint8Array, bytesPerSample: number, pixels: number): Uint8Array {
  if (src.length < 64) throw new Error('RLE frame shorter than its 64-byte header');
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  const segments = view.getUint32(0, true);
  if (segments !== bytesPerSample) {
    throw new Error(`RLE frame has ${segments} segments where ${bytesPerSample} were expected`);
  }
  // PackBits expands at most 64-fold (two bytes replicate one into 128): a header that claims more
  // pixels than the segments can hold is refused before the output is allocated.
  for (let s = 0; s < segments; s++) {
    const start = view.getUint32(4 + s * 4, true);
    const end = s + 1 < segments ? view.getUint32(8 + s * 4, true) : src.length;
    if (end > start && pixels > (end - start) * 64) throw new Error('RLE segment too short for the frame');
  }
  // Output in little-endian sample order: segment 0 (most significant) goes to the last byte.
  const out = new Uint8Array(pixels * bytesPerSample);
  for (let s = 0; s < segments; s++) {
    const start = view.getUint32(4 + s * 4, true);
    const end = s + 1 < segments ? view.getUint32(8 + s * 4, true) : src.length;
    if (start < 64 || start > src.length || end < start || end > src.length) {
      throw new Error('RLE segment offsets point outside the frame');
    }
    const plane = bytesPerSample - 1 - s;
    let i = start;
    let p = 0;
    while (p < pixels && i < end) {
      const n = src[i++]!;
      if (n < 128) {
        // Literal run of n + 1 bytes.
        const count = Math.min(n + 1, pixels - p, end - i);
        for (let k = 0; k < count; k++) out[(p + k) * bytesPerSample + plane] = src[i + k]!;
        i += n + 1;
        p += count;
      } else if (n > 128) {
        // Replicate the next byte 257 - n times.
        const count = Math.min(257 - n, pixels - p);
        const v = src[i++] ?? 0;
        for (let k = 0; k < count; k++) out[(p + k) * bytesPerSample + plane] = v;
        p += count;
      }
      // n === 128 is a no-op by definition.
    }
    if (p < pixels) throw new Error('RLE segment ends before the frame is complete');
  }
  return out;
}
