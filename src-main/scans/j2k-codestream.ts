/**
 * Checks of a JPEG 2000 codestream's structure against the DICOM header, made before OpenJPEG runs.
 * OpenJPEG decodes a codestream whose main header was tampered with and says nothing: SIZ declaring
 * 4 tiles where 1 is stored gave 63,316 of 65,536 pixels wrong, and a precision or subsampling
 * that differs from the data's gave a wrong image too, all made into a mesh (a review). What can be
 * told without a reference is checked here: that every tile SIZ implies is present, that the
 * tile-parts' lengths (Psot) add up to the codestream, and that each component's precision and
 * subsampling are what the DICOM header says (ITU-T T.800 A.5.1, A.4.2).
 *
 * The checks are written as a generator that asks for bytes at positions (`need`), so the same
 * rules run over a frame in memory (before decoding) and over a file read in small pieces (inspect).
 */

/** A request for `n` bytes at codestream position `at`; answered with what there is (maybe fewer). */
export interface J2kNeed {
  at: number;
  n: number;
}

/** What the DICOM header says the codestream must hold. */
export interface J2kExpect {
  samplesPerPixel: number;
  bitsStored: number;
  bitsAllocated: number;
}

export type J2kCheck = Generator<J2kNeed, string | undefined, Uint8Array>;

const SOC = 0xff4f;
const SIZ = 0xff51;
const SOT = 0xff90;
const EOC = 0xffd9;

/** Main header marker segments looked at, at most: a real one holds a handful (SIZ, COD, QCD, COM). */
const MAX_MAIN_SEGMENTS = 256;

function u16(b: Uint8Array, at: number): number {
  return ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
}

function u32(b: Uint8Array, at: number): number {
  return u16(b, at) * 0x10000 + u16(b, at + 2);
}

/**
 * Why a JPEG 2000 codestream of `length` bytes cannot be trusted to decode to the DICOM header's
 * image, in words for the log and the clinician's message; undefined when its structure adds up.
 */
export function* j2kStructureProblem(length: number, expect: J2kExpect): J2kCheck {
  const head = yield { at: 0, n: 2 };
  if (u16(head, 0) !== SOC) return 'it does not start as a JPEG 2000 codestream';
  let pos = 2;
  let tiles = 0;
  for (let i = 0; ; i++) {
    if (i >= MAX_MAIN_SEGMENTS || pos + 4 > length) return 'its main header does not end';
    const m = yield { at: pos, n: 4 };
    const marker = u16(m, 0);
    if (marker === SOT) break;
    if (m.length < 4 || m[0] !== 0xff) return 'its main header is damaged';
    const segment = u16(m, 2);
    if (marker === SIZ) {
      const body = yield { at: pos + 4, n: segment - 2 };
      const problem = sizProblem(body, segment, expect);
      if (typeof problem === 'string') return problem;
      tiles = problem;
    }
    pos += 2 + segment;
  }
  if (tiles === 0) return 'its main header has no image and tile size (SIZ)';
  return yield* tilePartsProblem(pos, length, tiles);
}

/** The number of tiles SIZ implies, or why SIZ does not fit the DICOM header. */
function sizProblem(b: Uint8Array, segment: number, expect: J2kExpect): string | number {
  // Rsiz, Xsiz, Ysiz, XOsiz, YOsiz, XTsiz, YTsiz, XTOsiz, YTOsiz, Csiz, then 3 bytes per component.
  if (b.length < 36) return 'its image and tile size (SIZ) is cut short';
  const xsiz = u32(b, 2);
  const ysiz = u32(b, 6);
  const xtsiz = u32(b, 18);
  const ytsiz = u32(b, 22);
  const xtosiz = u32(b, 26);
  const ytosiz = u32(b, 30);
  const components = u16(b, 34);
  if (components !== expect.samplesPerPixel)
    return `its codestream holds ${components} components where the header says ${expect.samplesPerPixel} samples per pixel`;
  if (segment !== 38 + 3 * components || b.length < 36 + 3 * components)
    return 'its image and tile size (SIZ) has the wrong length';
  for (let c = 0; c < components; c++) {
    const ssiz = b[36 + 3 * c]!;
    const precision = (ssiz & 0x7f) + 1;
    // Bits Stored may be fewer than the codestream's precision (a real 12-bit MR is coded in 16),
    // never more, and the precision must fit Bits Allocated.
    if (precision < expect.bitsStored || precision > expect.bitsAllocated)
      return `its codestream holds ${precision}-bit samples where the header says ${expect.bitsStored} bits stored in ${expect.bitsAllocated}`;
    // Its sign bit (0x80) is not held to Pixel Representation: encoders that ignore the sign exist,
    // and the decoded bits are read as the header says, as pydicom corrects them (a review's real
    // head coded unsigned under a signed header decoded exactly, and was refused).
    if (b[37 + 3 * c] !== 1 || b[38 + 3 * c] !== 1)
      return 'its codestream subsamples the image, which no grey-scale scan does';
  }
  if (xtsiz === 0 || ytsiz === 0 || xtosiz >= xsiz || ytosiz >= ysiz)
    return 'its image and tile size (SIZ) is not possible';
  return Math.ceil((xsiz - xtosiz) / xtsiz) * Math.ceil((ysiz - ytosiz) / ytsiz);
}

/**
 * Walks the tile-parts from the first SOT by their lengths (Psot): they must end at the end marker
 * (EOC; padding may follow it) and hold every one of the `tiles` tiles.
 */
function* tilePartsProblem(first: number, length: number, tiles: number): J2kCheck {
  const seen = new Set<number>();
  let pos = first;
  // Each tile-part takes at least its 14-byte SOT segment and SOD marker.
  for (let parts = 0; parts <= length / 14; parts++) {
    const s = yield { at: pos, n: 12 };
    if (u16(s, 0) === EOC) break;
    if (s.length < 12 || u16(s, 0) !== SOT || u16(s, 2) !== 10)
      return `its tile-part lengths do not add up to the codestream (no tile-part at byte ${pos})`;
    const tile = u16(s, 4);
    const psot = u32(s, 6);
    if (tile >= tiles) return `it holds a tile numbered ${tile} where its header gives ${tiles} tiles`;
    seen.add(tile);
    // Psot 0: the last tile-part, which runs to the end marker.
    if (psot === 0) {
      const end = yield { at: length - 2, n: 2 };
      pos = u16(end, 0) === EOC ? length - 2 : length;
      if (pos === length) return 'its last tile-part does not end at the end marker';
      continue;
    }
    if (psot < 14 || pos + psot > length - 2)
      return `its tile-part lengths do not add up to the codestream (a tile-part runs past its end)`;
    pos += psot;
  }
  if (seen.size < tiles)
    return `it holds ${seen.size} of the ${tiles} tiles its header gives: the rest of the image is missing`;
  return undefined;
}

/** Runs the checks over a whole codestream in memory. */
export function j2kProblemIn(codestream: Uint8Array, expect: J2kExpect): string | undefined {
  // Padding after the end marker (fragments are even-length) is not part of the tile-parts.
  let length = codestream.length;
  while (length > 2 && codestream[length - 1] === 0) length--;
  const check = j2kStructureProblem(length, expect);
  let step = check.next(new Uint8Array(0));
  while (!step.done) step = check.next(codestream.subarray(step.value.at, step.value.at + step.value.n));
  return step.value;
}
