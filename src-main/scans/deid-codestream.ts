/**
 * Compressed frames made free of everything but the image. A JPEG or JPEG-LS codestream may carry
 * comments (COM) and application segments (APP0-APP15: Exif, ICC, a vendor's blocks) with any text;
 * a JPEG 2000 codestream may carry comments (COM) in its main and tile-part headers; any of them may
 * have bytes after their end marker. Those are removed and what decoding needs is kept, re-derived
 * where it could hold more (Adobe's APP14: only its colour transform flag). A codestream that does
 * not parse is refused (CodestreamRefused): what cannot be read cannot be shown to be clean.
 */

export class CodestreamRefused extends Error {}

const u16 = (b: Uint8Array, i: number): number => {
  if (i + 2 > b.length) throw new CodestreamRefused('the codestream ends inside a marker');
  return (b[i]! << 8) | b[i + 1]!;
};
const u32 = (b: Uint8Array, i: number): number => u16(b, i) * 65536 + u16(b, i + 2);

/** A cleaned frame, and the sample precision its codestream declares (for the unused-bits check). */
export interface CleanFrame {
  bytes: Buffer;
  precision: number;
}

/** SOF markers of JPEG (C0-CF but DHT C4, JPG C8, DAC CC) and JPEG-LS (F7 SOF55). */
const isSof = (m: number): boolean =>
  (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) || m === 0xf7;

/**
 * A JPEG (ISO 10918) or JPEG-LS (ISO 14495) frame with its APPn and COM segments removed, and
 * nothing after EOI. Entropy-coded data is copied as it is: in JPEG an FF there is followed by 00 or
 * a restart marker; in JPEG-LS by a byte below 80 (bit stuffing).
 */
export function cleanJpeg(frame: Uint8Array, jpegLs: boolean): CleanFrame {
  if (u16(frame, 0) !== 0xffd8) throw new CodestreamRefused('the frame does not start a JPEG image');
  const out: Uint8Array[] = [frame.subarray(0, 2)];
  let precision = 0;
  let i = 2;
  for (;;) {
    if (frame[i] !== 0xff) throw new CodestreamRefused('a JPEG marker was expected');
    while (frame[i + 1] === 0xff) i++; // fill bytes
    const m = frame[i + 1];
    if (m === undefined) throw new CodestreamRefused('the codestream ends before its end marker');
    if (m === 0xd9) {
      out.push(frame.subarray(i, i + 2)); // EOI; whatever follows is dropped
      break;
    }
    if ((m >= 0xd0 && m <= 0xd7) || m === 0x01) {
      out.push(frame.subarray(i, i + 2));
      i += 2;
      continue;
    }
    const end = i + 2 + u16(frame, i + 2);
    if (end > frame.length) throw new CodestreamRefused('a JPEG segment runs past the frame');
    if (isSof(m)) precision = Math.max(precision, frame[i + 4] ?? 0);
    if (m === 0xee && Buffer.from(frame.subarray(i + 4, i + 9)).toString('latin1') === 'Adobe') {
      // Decoders read the colour transform from Adobe's APP14; the rest (version, flags) is dropped.
      const transform = end - i >= 16 ? frame[i + 15]! : 0;
      out.push(
        Uint8Array.from([0xff, 0xee, 0, 14, 0x41, 0x64, 0x6f, 0x62, 0x65, 0, 100, 0, 0, 0, 0, transform]),
      );
    } else if (!((m >= 0xe0 && m <= 0xef) || m === 0xfe)) {
      out.push(frame.subarray(i, end));
    }
    i = end;
    if (m === 0xda) {
      // Entropy-coded data up to the next marker that is not data.
      let j = i;
      for (;;) {
        if (j + 1 >= frame.length) throw new CodestreamRefused('the codestream ends inside its image data');
        if (frame[j] === 0xff) {
          const n = frame[j + 1]!;
          const data = jpegLs ? n < 0x80 : n === 0 || n === 0xff || (n >= 0xd0 && n <= 0xd7);
          if (!data) break;
        }
        j++;
      }
      out.push(frame.subarray(i, j));
      i = j;
    }
  }
  if (precision === 0) throw new CodestreamRefused('the codestream has no frame header');
  return { bytes: Buffer.concat(out), precision };
}

const J2K_COM = 0xff64;
const J2K_SOT = 0xff90;
const J2K_SOD = 0xff93;
const J2K_EOC = 0xffd9;
const J2K_SIZ = 0xff51;

/**
 * A JPEG 2000 codestream (also HTJ2K) with its COM marker segments removed from the main header
 * and every tile-part header (each tile-part's length, Psot, made to fit), and nothing after EOC.
 * A JP2 file (boxes around the codestream) is refused: DICOM holds bare codestreams.
 */
export function cleanJ2k(frame: Uint8Array): CleanFrame {
  if (u16(frame, 0) !== 0xff4f)
    throw new CodestreamRefused('the frame does not start a JPEG 2000 codestream');
  const out: Uint8Array[] = [frame.subarray(0, 2)];
  let precision = 0;
  let i = 2;
  /** Marker segments up to `stop`, COM left out; returns where `stop` is and the bytes dropped. */
  const segments = (stop: number, into: Uint8Array[]): [number, number] => {
    let dropped = 0;
    for (;;) {
      const m = u16(frame, i);
      if (m === stop) return [i, dropped];
      if (m < 0xff00) throw new CodestreamRefused('a JPEG 2000 marker was expected');
      const end = i + 2 + u16(frame, i + 2);
      if (end > frame.length) throw new CodestreamRefused('a JPEG 2000 segment runs past the frame');
      if (m === J2K_SIZ) {
        const components = u16(frame, i + 38);
        for (let c = 0; c < components; c++)
          precision = Math.max(precision, ((frame[i + 40 + 3 * c] ?? 0) & 0x7f) + 1);
      }
      if (m === J2K_COM) dropped += end - i;
      else into.push(frame.subarray(i, end));
      i = end;
    }
  };
  segments(J2K_SOT, out);
  while (u16(frame, i) === J2K_SOT) {
    const sot = i;
    const psot = u32(frame, sot + 6);
    const tileEnd = psot === 0 ? lastTileEnd(frame) : sot + psot;
    if (tileEnd > frame.length || tileEnd < sot + 14)
      throw new CodestreamRefused('a tile-part runs past the frame');
    i = sot + 12;
    const header: Uint8Array[] = [];
    const [sod, dropped] = segments(J2K_SOD, header);
    const sotBytes = Buffer.from(frame.subarray(sot, sot + 12));
    if (psot !== 0) sotBytes.writeUInt32BE(psot - dropped, 6);
    out.push(sotBytes, ...header, frame.subarray(sod, tileEnd));
    i = tileEnd;
    if (i + 2 > frame.length) throw new CodestreamRefused('the codestream has no end marker');
  }
  if (u16(frame, i) !== J2K_EOC) throw new CodestreamRefused('unexpected data after the last tile-part');
  out.push(frame.subarray(i, i + 2));
  if (precision === 0) throw new CodestreamRefused('the codestream has no image header');
  return { bytes: Buffer.concat(out), precision };
}

/** The end of a last tile-part that does not give its length: just before EOC at the frame's end. */
function lastTileEnd(frame: Uint8Array): number {
  let end = frame.length;
  while (end > 2 && frame[end - 1] === 0) end--; // the fragment's padding
  if (u16(frame, end - 2) !== J2K_EOC) throw new CodestreamRefused('the codestream has no end marker');
  return end - 2;
}

/**
 * One frame encoded as DICOM RLE (PS3.5 G.3): `samples` little-endian samples of `bytesPerSample`
 * bytes, one segment per byte plane, most significant first, each PackBits-coded and even.
 */
export function encodeRle(samples: Uint8Array, bytesPerSample: number): Buffer {
  const pixels = samples.length / bytesPerSample;
  const header = Buffer.alloc(64);
  header.writeUInt32LE(bytesPerSample, 0);
  const parts: Buffer[] = [header];
  let offset = 64;
  const plane = new Uint8Array(pixels);
  for (let s = 0; s < bytesPerSample; s++) {
    const byte = bytesPerSample - 1 - s;
    for (let p = 0; p < pixels; p++) plane[p] = samples[p * bytesPerSample + byte]!;
    const seg = packBits(plane);
    header.writeUInt32LE(offset, 4 + 4 * s);
    parts.push(seg);
    offset += seg.length;
  }
  return Buffer.concat(parts);
}

function packBits(b: Uint8Array): Buffer {
  const out = Buffer.alloc(b.length + Math.ceil(b.length / 128) + 2);
  let o = 0;
  let i = 0;
  while (i < b.length) {
    let run = 1;
    while (i + run < b.length && run < 128 && b[i + run] === b[i]) run++;
    if (run >= 2) {
      out[o++] = 257 - run;
      out[o++] = b[i]!;
      i += run;
      continue;
    }
    const start = i;
    while (i < b.length && i - start < 128 && !(b[i + 1] === b[i] && i + 1 < b.length)) i++;
    out[o++] = i - start - 1;
    out.set(b.subarray(start, i), o);
    o += i - start;
  }
  if (o % 2 === 1) out[o++] = 128; // a no-op byte keeps the segment even
  return out.subarray(0, o);
}
