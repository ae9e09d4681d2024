/**
 * The image size a compressed frame declares in its own header (JPEG SOFn, JPEG-LS SOF55, JPEG 2000
 * SIZ), read before any decoder runs: a codec allocates what the codestream says, so a damaged
 * header (pydicom's JPEG2000-embedded-sequence-delimiter.dcm claims 3.7 billion columns) must be
 * refused here rather than handed to it.
 */
export interface CodestreamSize {
  width: number;
  height: number;
  components: number;
  /** Bits per sample the codestream declares. */
  precision: number;
}

/** Reads the size of a JPEG-family (JPEG, JPEG-LS) or JPEG 2000 codestream; undefined when none is found. */
export function codestreamSize(b: Uint8Array): CodestreamSize | undefined {
  if (b.length < 4 || b[0] !== 0xff) return undefined;
  if (b[1] === 0x4f && b[2] === 0xff && b[3] === 0x51) return j2kSize(b);
  if (b[1] === 0xd8) return jpegSize(b);
  return undefined;
}

function u16(b: Uint8Array, at: number): number {
  return ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
}

function u32(b: Uint8Array, at: number): number {
  return u16(b, at) * 0x10000 + u16(b, at + 2);
}

/** JPEG 2000 SIZ: Lsiz, Rsiz, Xsiz, Ysiz, XOsiz, YOsiz, tile sizes, then Csiz and Ssiz per component. */
function j2kSize(b: Uint8Array): CodestreamSize | undefined {
  if (b.length < 43) return undefined;
  const width = u32(b, 8) - u32(b, 16);
  const height = u32(b, 12) - u32(b, 20);
  return { width, height, components: u16(b, 40), precision: ((b[42] ?? 0) & 0x7f) + 1 };
}

/** Walks JPEG marker segments to the first start-of-frame (SOF0-3, 5-7, 9-11, 13-15, or JPEG-LS SOF55). */
function jpegSize(b: Uint8Array): CodestreamSize | undefined {
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    const isSof =
      (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) ||
      marker === 0xf7;
    if (isSof) {
      if (at + 10 > b.length) return undefined;
      return { precision: b[at + 4]!, height: u16(b, at + 5), width: u16(b, at + 7), components: b[at + 9]! };
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // end of image, or scan data before any frame header
    at += 2 + u16(b, at + 2);
  }
  return undefined;
}

/**
 * Whether a JPEG-family or JPEG 2000 codestream holds its end marker (FFD9: EOI, or JPEG 2000's
 * EOC) after its header. Entropy-coded data never holds FF D9 (JPEG stuffs a 0 after FF, JPEG-LS and
 * JPEG 2000 a 0 bit), so a stream cut short lacks it; bytes after it (padding, a vendor's trailer)
 * are left to the decoders, which ignore them as pydicom's do. Handed to a decoder, a cut stream
 * spun CharLS for tens of seconds, and the others fill what is missing with grey: a wrong image
 * with no error.
 */
export function hasEndMarker(b: Uint8Array): boolean {
  for (let i = b.length - 2; i >= 2; i--) if (b[i] === 0xff && b[i + 1] === 0xd9) return true;
  return false;
}

/**
 * The restart interval a JPEG codestream declares (DRI, FFDD) before its first scan, in samples
 * (MCUs); 0 when it declares none. jpeg-lossless-decoder-js reads the last sample before each
 * restart marker wrongly (up to 7 grey values off, a review found with dcmtk's decoder as reference),
 * so JPEG Lossless with restarts is refused rather than decoded.
 */
export function restartInterval(b: Uint8Array): number {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return 0;
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return 0;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0xdd) return u16(b, at + 4);
    if (marker === 0xd9 || marker === 0xda) return 0;
    at += 2 + u16(b, at + 2);
  }
  return 0;
}

/**
 * The NEAR parameter of a JPEG-LS codestream's first scan (its SOS, ITU-T T.87 C.2.3): the most a
 * decoded value may differ from the original. 0 is lossless; undefined when no JPEG-LS scan is found.
 */
export function jpegLsNear(b: Uint8Array): number | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  let at = 2;
  let jpegLs = false;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0xf7) jpegLs = true;
    if (marker === 0xda) {
      const components = b[at + 4] ?? 0;
      const near = b[at + 5 + 2 * components];
      return jpegLs ? near : undefined;
    }
    if (marker === 0xd9) return undefined;
    at += 2 + u16(b, at + 2);
  }
  return undefined;
}
