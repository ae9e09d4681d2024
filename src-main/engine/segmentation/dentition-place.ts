/**
 * Teeth are shown to be teeth by where they are, not only by being dense and compact: a 3000 HU
 * block of metal placed in the cranial cavity of the real head CT passed the band check (it is
 * compact) and came out as "all_teeth", and with the slice positions negated the real teeth sat at
 * the top of the skull without a word. So each piece of the class must be joined to bone (teeth
 * sit in the jaw; a piece lying free in soft tissue or air is metal or a foreign body), and on a
 * scan tall enough to tell the skull from the jaws the class must lie in the lower part of the bone,
 * in patient coordinates (DICOM LPS: +z is towards the head).
 */
import { AppError } from '../../../src-shared/errors.js';
import { DENTITION_BAND_MM, type BandGeometry } from './dentition.js';
import { headFootSteps } from './head-foot.js';

/**
 * Bone that a piece of the class must be joined to (voxels above the bone level, reached through
 * such voxels): five times the piece, at least 1 cm³ and at most 5 cm³ (a whole dental arch as one
 * piece needs no more of the jaw than that). On the real head CT every one of the six pieces of the
 * teeth reaches that (it grows into dentine, the alveolar bone and the maxilla), also on the 80 x 80
 * voxel crop on the teeth and with slices 7.5 mm apart; the metal block reaches no bone voxel at
 * all. Partial volume around real metal in soft tissue gives a shell of a voxel or two, well below
 * five times the piece.
 */
const JOINED_BONE_FACTOR = 5;
const JOINED_BONE_MIN_MM3 = 1000;
const JOINED_BONE_MAX_MM3 = 5000;

/**
 * The bone must span this much along the head-foot axis before the class's height in it says
 * anything: the jaws with their teeth alone are about as high, and on a scan of the mandible alone
 * the teeth are its top. Twice the dentition band.
 */
export const PLACE_MIN_BONE_SPAN_MM = 2 * DENTITION_BAND_MM;

/**
 * Highest place of the class's centre in the bone's height (0 its foot end, 1 its head end). On the
 * real head CT 0.01, upside down 0.99; on a scan from the chin to the orbits the teeth lie near 0.4
 * (the lower face is shorter than the upper), so the limit leaves room above the middle.
 */
const PLACE_MAX_HEIGHT = 0.6;

/**
 * Denser than any compact bone: the top of InVesalius' "Compact Bone (Adult)" preset, 1988 HU (the
 * range Mimics uses too). A tooth's crown holds enamel above it: on the real head CT every piece of
 * the teeth reaches 2544 HU or more. The densest bone elsewhere passes the dentition level in specks
 * (the skull base and the cheekbones there, 35 to 55 mm above the teeth, reach 1794 to 1931 HU); 10 mm³
 * of it became pieces of "all_teeth" once the scan's calibration read 30 HU higher.
 */
export const COMPACT_BONE_MAX_HU = 1988;

/** Enamel a piece must hold to be part of a dentition: this much above COMPACT_BONE_MAX_HU (a crown holds tens). */
const ENAMEL_MIN_MM3 = 2;

/**
 * How near a piece with enamel a piece without must lie to be taken for a tooth's dentine (mm between
 * their boxes): a root or a crown's edge that the level cut off, or a tooth whose crown lies outside
 * the scan, lies within a tooth's width of the others; the skull base and the cheekbones lie 35 mm
 * and more above the teeth.
 */
const DENTINE_REACH_MM = 10;

/**
 * Or at the height of the pieces with enamel, within this much (mm, head-foot) of them: on a smoothed
 * scan (partial volume, a soft reconstruction) the enamel of some crowns stays below
 * COMPACT_BONE_MAX_HU, and a tooth group on the other side of the arch, at the same height, has none
 * left (a review's Gaussian blur of 1.8 voxels on the real head dropped a whole side). A canine is 27 mm
 * long, its enamel at one end; the specks of the skull base lie 35 mm and more above the teeth.
 */
const DENTINE_HEIGHT_MM = 15;

/** A piece's extent in voxel indices: [i0, j0, k0, i1, j1, k1], inclusive. */
type Box = [number, number, number, number, number, number];

function boxOf(piece: number[], dims: [number, number, number]): Box {
  const [nx, ny] = dims;
  const b: Box = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
  for (const p of piece) {
    const i = p % nx;
    const j = Math.floor(p / nx) % ny;
    const k = Math.floor(p / (nx * ny));
    if (i < b[0]) b[0] = i;
    if (j < b[1]) b[1] = j;
    if (k < b[2]) b[2] = k;
    if (i > b[3]) b[3] = i;
    if (j > b[4]) b[4] = j;
    if (k > b[5]) b[5] = k;
  }
  return b;
}

/** The lowest and highest place of a box's corners along the head-foot axis (mm, as headFootSteps). */
function heightsOf(b: Box, s: ReturnType<typeof headFootSteps>): [number, number] {
  let low = Infinity;
  let high = -Infinity;
  for (const i of [b[0], b[3]])
    for (const j of [b[1], b[4]])
      for (const k of [b[2], b[5]]) {
        const h = i * s.di + j * s.dj + k * s.dk - s.lo;
        low = Math.min(low, h);
        high = Math.max(high, h);
      }
  return [low, high];
}

/** Whether two boxes come within `reach` voxels of each other along every axis. */
function boxesMeet(a: Box, b: Box, reach: [number, number, number]): boolean {
  for (let d = 0; d < 3; d++) {
    if (a[d]! > b[d + 3]! + reach[d]! || b[d]! > a[d + 3]! + reach[d]!) return false;
  }
  return true;
}

/** Enamel reaches about 3000 HU at most; values at or above it in the class are metal or the scanner's ceiling. */
export const METAL_MIN_HU = 3000;

export interface DentitionPlace {
  /** Pieces of the class not joined to bone, taken out of its mask, and their voxels. */
  loose: number;
  looseVoxels: number;
  /** Pieces without enamel (nothing denser than compact bone) and away from any with, taken out of its mask, and their voxels. */
  compact: number;
  compactVoxels: number;
  /** Share of the kept class at METAL_MIN_HU or above (fillings, crowns, implants, saturated values). */
  metalShare: number;
  /** Height of the bone along the head-foot axis (its 0.5th to 99.5th percentile), mm. */
  boneSpan: number;
  /** Where the class's centre lies in that height, 0 at the foot end; null when the bone is too short to tell. */
  heightInBone: number | null;
}

interface PlaceVolume extends BandGeometry {
  data: Int16Array | Float32Array;
}

/** The 6-neighbours of voxel p inside the volume. */
function neighbours(p: number, dims: [number, number, number], out: number[]): number {
  const [nx, ny, nz] = dims;
  const plane = nx * ny;
  const i = p % nx;
  const j = Math.floor(p / nx) % ny;
  const k = Math.floor(p / plane);
  let n = 0;
  if (i > 0) out[n++] = p - 1;
  if (i < nx - 1) out[n++] = p + 1;
  if (j > 0) out[n++] = p - nx;
  if (j < ny - 1) out[n++] = p + nx;
  if (k > 0) out[n++] = p - plane;
  if (k < nz - 1) out[n++] = p + plane;
  return n;
}

/** The 6-connected pieces of a mask, as voxel lists (the class is small: a few thousand voxels). */
function pieces(mask: Uint8Array, dims: [number, number, number]): number[][] {
  const seen = new Set<number>();
  const out: number[][] = [];
  const nb: number[] = [];
  // Four voxels at a time where the mask's bytes allow: the class is a thousandth of the volume.
  const words =
    mask.byteOffset % 4 === 0 ? new Uint32Array(mask.buffer, mask.byteOffset, mask.length >> 2) : null;
  for (let p = 0; p < mask.length; p++) {
    if (words && (p & 3) === 0 && p >> 2 < words.length && words[p >> 2] === 0) {
      p += 3;
      continue;
    }
    if (mask[p] === 0 || seen.has(p)) continue;
    const piece = [p];
    seen.add(p);
    for (let q = 0; q < piece.length; q++) {
      const c = neighbours(piece[q] as number, dims, nb);
      for (let x = 0; x < c; x++) {
        const r = nb[x] as number;
        if (mask[r] !== 0 && !seen.has(r)) {
          seen.add(r);
          piece.push(r);
        }
      }
    }
    out.push(piece);
  }
  return out;
}

/** Whether at least `need` voxels above `boneLevel`, outside the piece, are reached from it through such voxels. */
function joinedToBone(v: PlaceVolume, piece: number[], boneLevel: number, need: number): boolean {
  const seen = new Set(piece);
  const front = [...piece];
  const nb: number[] = [];
  let bone = 0;
  while (front.length > 0) {
    const c = neighbours(front.pop() as number, v.dims, nb);
    for (let x = 0; x < c; x++) {
      const r = nb[x] as number;
      if (seen.has(r) || !((v.data[r] as number) > boneLevel)) continue;
      seen.add(r);
      if (++bone >= need) return true;
      front.push(r);
    }
  }
  return false;
}

/**
 * The bone's extent along the head-foot axis (mm above the volume's lowest point): the 0.5th and
 * 99.5th percentile of the voxels above `level`, counted on every second row and column (a quarter
 * of the volume: the extent of a skull does not need every voxel).
 */
function boneExtent(v: PlaceVolume, level: number): [number, number] {
  const [nx, ny, nz] = v.dims;
  const { di, dj, dk, lo, height } = headFootSteps(v);
  const bins = new Float64Array(Math.ceil(height) + 2);
  let total = 0;
  const data = v.data;
  for (let k = 0; k < nz; k++)
    for (let j = 0; j < ny; j += 2) {
      const row = (k * ny + j) * nx;
      const base = j * dj + k * dk - lo;
      for (let i = 0; i < nx; i += 2) {
        if (!((data[row + i] as number) > level)) continue;
        const b = Math.floor(base + i * di);
        bins[b] = (bins[b] as number) + 1;
        total++;
      }
    }
  let sum = 0;
  let from = -1;
  let to = 0;
  for (let b = 0; b < bins.length; b++) {
    sum += bins[b] as number;
    if (from < 0 && sum > 0.005 * total) from = b;
    if (sum <= 0.995 * total) to = b + 1;
  }
  return [Math.max(0, from), Math.max(from, to) + 1];
}

/** How many voxels of a piece lie above `level` on the Hounsfield scale (`hu`), counting up to `need`. */
function countAbove(
  v: PlaceVolume,
  piece: number[],
  hu: (value: number) => number,
  level: number,
  need: number,
): number {
  let n = 0;
  for (let q = 0; q < piece.length && n < need; q++)
    if (hu(v.data[piece[q] as number] as number) > level) n++;
  return n;
}

/**
 * Takes the pieces not joined to bone, and those without enamel, out of `mask` and refuses the class when none is left or when
 * it lies high in the bone; returns what was found, for the job's note. `hu` maps a grey value to
 * Hounsfield units (or their equivalent on the scan's scale).
 */
export function placeDentition(
  mask: Uint8Array,
  v: PlaceVolume,
  boneLevel: number,
  hu: (value: number) => number,
  /** The class in words, for the refusals. */
  how: string,
  /** Whether the scan's values are Hounsfield units (else `hu` maps them by its air and soft tissue). */
  hounsfield: boolean,
): DentitionPlace {
  const voxelMm3 = v.spacing[0] * v.spacing[1] * v.spacing[2];
  const all = pieces(mask, v.dims);
  let loose = 0;
  let looseVoxels = 0;
  let compact = 0;
  let compactVoxels = 0;
  const enamelNeed = Math.max(1, Math.ceil(ENAMEL_MIN_MM3 / voxelMm3));
  const enamel: Box[] = [];
  const dentine: { piece: number[]; box: Box }[] = [];
  const steps = headFootSteps(v);
  let enamelLow = Infinity;
  let enamelHigh = -Infinity;
  for (const piece of all) {
    const need = Math.min(
      Math.max(JOINED_BONE_FACTOR * piece.length, Math.ceil(JOINED_BONE_MIN_MM3 / voxelMm3)),
      Math.ceil(JOINED_BONE_MAX_MM3 / voxelMm3),
    );
    if (!joinedToBone(v, piece, boneLevel, need)) {
      for (const p of piece) mask[p] = 0;
      loose++;
      looseVoxels += piece.length;
    } else if (countAbove(v, piece, hu, COMPACT_BONE_MAX_HU, enamelNeed) >= enamelNeed) {
      const box = boxOf(piece, v.dims);
      enamel.push(box);
      const [low, high] = heightsOf(box, steps);
      enamelLow = Math.min(enamelLow, low);
      enamelHigh = Math.max(enamelHigh, high);
    } else {
      dentine.push({ piece, box: boxOf(piece, v.dims) });
    }
  }
  // A piece without enamel is a tooth's dentine (a root the level cut off its crown, or a crown whose
  // enamel a smoothed scan blurred) only beside one with enamel, or at their height; elsewhere it is
  // compact bone.
  const reach = v.spacing.map((s) => Math.ceil(DENTINE_REACH_MM / s)) as [number, number, number];
  for (const { piece, box } of dentine) {
    if (enamel.some((e) => boxesMeet(box, e, reach))) continue;
    const [low, high] = heightsOf(box, steps);
    if (high >= enamelLow - DENTINE_HEIGHT_MM && low <= enamelHigh + DENTINE_HEIGHT_MM) continue;
    for (const p of piece) mask[p] = 0;
    compact++;
    compactVoxels += piece.length;
  }
  if (compact > 0 && loose + compact === all.length) {
    const others = loose > 0 ? ` (and ${loose} lying free of bone, as metal does)` : '';
    throw new AppError(
      'bad-input',
      `The densest tissue of this scan (${how}) cannot be shown to be teeth: none of its pieces holds enamel, denser than any compact bone (${COMPACT_BONE_MAX_HU} HU${hounsfield ? '' : ' or its equivalent on this scan'}), as a tooth's crown does${others}. It is compact bone, or teeth the scan blurs too much to tell from it; so no teeth mesh was made.`,
      { action: 'Ask for skull (all bone) instead, or use a remote segmentation service for the teeth.' },
    );
  }
  if (loose === all.length) {
    throw new AppError(
      'bad-input',
      `The densest tissue of this scan (${how}) is not teeth: ${loose === 1 ? 'it lies' : `its ${loose} pieces lie`} free in soft tissue or air, joined to no bone, as metal or a foreign body does, while teeth sit in the jaw; so no teeth mesh was made.`,
      { action: 'Ask for skull (all bone) instead, or use a remote segmentation service for the teeth.' },
    );
  }
  const { di, dj, dk, lo } = headFootSteps(v);
  const [nx, ny] = v.dims;
  let count = 0;
  let zSum = 0;
  let metal = 0;
  // From the pieces' voxel lists, not another pass over the mask.
  for (const piece of all) {
    if (mask[piece[0] as number] === 0) continue;
    for (const p of piece) {
      const i = p % nx;
      const j = Math.floor(p / nx) % ny;
      const k = Math.floor(p / (nx * ny));
      zSum += i * di + j * dj + k * dk - lo + 0.5;
      count++;
      if (hu(v.data[p] as number) >= METAL_MIN_HU) metal++;
    }
  }
  const [from, to] = boneExtent(v, boneLevel);
  const boneSpan = to - from;
  const heightInBone = boneSpan >= PLACE_MIN_BONE_SPAN_MM ? (zSum / count - from) / boneSpan : null;
  if (heightInBone !== null && heightInBone > PLACE_MAX_HEIGHT) {
    throw new AppError(
      'bad-input',
      `The densest tissue of this scan (${how}) lies ${Math.round(heightInBone * 100)} % of the way up its bone (${Math.round(boneSpan)} mm from the lowest to the highest bone), where no teeth are: teeth sit in the jaws, below the skull. ` +
        'Either the slice positions of the scan run the wrong way (the head end where the feet should be), or this is not a dentition; so no teeth mesh was made.',
      {
        action:
          "Check the scan's orientation in the scanner's software; ask for skull instead, or use a remote segmentation service for the teeth.",
      },
    );
  }
  return { loose, looseVoxels, compact, compactVoxels, metalShare: metal / count, boneSpan, heightInBone };
}
