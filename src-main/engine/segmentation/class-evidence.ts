/**
 * Whether the tissue classes a threshold finds are in the scan at all, shown before a surface is
 * named after them. Otsu's method splits any histogram in two, and a scale read from two peaks is a
 * scale whatever the peaks are: on a crop of brain alone (no bone, no air) the splits fell between
 * grey and white matter and CSF, and came out as "skull", "airway" and, scaled from them, "teeth".
 * So each class must be seen where it physically is: air as a sizeable population far below soft
 * tissue, bone as a class well above it. What is missing is refused in words before any work.
 */
import { AppError } from '../../../src-shared/errors.js';
import type { Volume } from '../../scans/volume.js';
import type { Histogram } from './histogram.js';
import { huOf, type GreyScale } from './dentition.js';

/** What a grey-value threshold can honestly find in a CBCT scan. */
export type Tissue = 'bone' | 'teeth' | 'soft-tissue' | 'airway';

/** Why a class is not in a scan, in words, and what to do. */
export interface Absence {
  message: string;
  action: string;
}

export type Absent = Partial<Record<Tissue, Absence>>;

/**
 * Smallest share of the scan (out-of-view padding left out) that air must fill to be a population:
 * the real head CT has 65 % air, its 80 x 80 x 27 voxel crop on the teeth 15 %; a few air voxels are
 * a bubble or noise, not air around a head. 0.5 %.
 */
export const AIR_MIN_SHARE = 0.005;

/**
 * On a scale not in Hounsfield units, air and soft tissue must be two populations with a deep valley
 * between: the histogram's density halfway between the two peaks at most this share of the lower
 * peak's. Real head CT 0.04 (also on an uncalibrated copy of it), the skull phantom 0.25, the same
 * head with noise of 250 HU added 0.64; brain alone, whose "peaks" are grey and white matter, 1.75.
 */
export const AIR_VALLEY_MAX = 0.5;

/**
 * Lowest level at which soft tissue and bone may be split: cancellous bone starts near 150-200 HU
 * (InVesalius' "Bone" preset: 226 HU), while brain, muscle and blood stay below 100 HU. The real head
 * CT splits at 478 HU, the skull phantom at 446 HU, brain alone at 24.5 HU.
 */
export const BONE_MIN_HU = 150;

/** A value that bone clearly reaches (most cancellous and all cortical bone lie above it). */
const BONE_CLEAR_HU = 300;

/**
 * Share of the scan (padding left out) above BONE_CLEAR_HU that is bone however the histogram's
 * peaks place the scale: a CT whose air sits near -1000 is in Hounsfield units, and a slab of the
 * skull phantom (plastic in air, no soft-tissue peak) splits low on a scale read from other peaks
 * (80 "HU") while 5 % of it lies above 300 HU (the four 35-slice slabs: 5-10 %). Brain alone has none there. 0.5 %.
 */
const BONE_CLEAR_MIN_SHARE = 0.005;

/** Lowest value of a CT whose air reads as air in Hounsfield units (-1000, give or take noise). */
const HU_AIR_MAX = -900;

/** Voxels of the histogram, without the padding bin (the lowest value, when it is padding). */
function voxels(h: Histogram, padding: boolean): number {
  let n = 0;
  for (let b = padding ? 1 : 0; b < h.counts.length; b++) n += h.counts[b] as number;
  return n;
}

/** Share of the voxels (padding left out) whose value lies below `v`. */
export function shareBelow(h: Histogram, v: number, padding: boolean): number {
  const total = voxels(h, padding);
  if (total === 0) return 0;
  let n = 0;
  const end = Math.min(h.counts.length, Math.ceil((v - h.min) / h.binWidth));
  for (let b = padding ? 1 : 0; b < end; b++) n += h.counts[b] as number;
  return n / total;
}

/** The value below which a share `p` of the voxels lies (padding left out), to a bin. */
export function valueAtShare(h: Histogram, p: number, padding: boolean): number {
  const total = voxels(h, padding);
  let seen = 0;
  for (let b = padding ? 1 : 0; b < h.counts.length; b++) {
    seen += h.counts[b] as number;
    if (seen >= p * total) return h.min + b * h.binWidth;
  }
  return h.min + h.counts.length * h.binWidth;
}

/** Mean count per grey value over [centre - half, centre + half]. */
function density(h: Histogram, centre: number, half: number): number {
  const b0 = Math.max(0, Math.floor((centre - half - h.min) / h.binWidth));
  const b1 = Math.min(h.counts.length - 1, Math.floor((centre + half - h.min) / h.binWidth));
  let n = 0;
  for (let b = b0; b <= b1; b++) n += h.counts[b] as number;
  return n / Math.max(1, b1 - b0 + 1);
}

/**
 * Whether the two peaks a scale was read from are air and soft tissue: air a sizeable population,
 * and a deep valley between the peaks (AIR_VALLEY_MAX), compared over a tenth of their distance.
 */
export function airApartFromTissue(
  h: Histogram,
  scale: Pick<GreyScale, 'air' | 'soft'>,
  airLevel: number,
  padding: boolean,
): boolean {
  if (shareBelow(h, airLevel, padding) < AIR_MIN_SHARE) return false;
  const half = Math.max(h.binWidth, (scale.soft - scale.air) / 20);
  const lower = Math.min(density(h, scale.air, half), density(h, scale.soft, half));
  return lower > 0 && density(h, (scale.air + scale.soft) / 2, half) <= AIR_VALLEY_MAX * lower;
}

/** Lowest and highest value of the scan (padding left out), for messages. */
function valueRange(h: Histogram, padding: boolean): [number, number] {
  let lo = padding ? 1 : 0;
  while (lo < h.counts.length - 1 && h.counts[lo] === 0) lo++;
  let hi = h.counts.length - 1;
  while (hi > lo && h.counts[hi] === 0) hi--;
  return [h.min + lo * h.binWidth, h.min + hi * h.binWidth];
}

const num = (v: number): string => String(Math.round(v));

/** Where signed 16-bit values read as unsigned land: 0 to 32,767 as they are, below 0 from 32,768 up. */
const WRAP_LOW = 16_384;
const WRAP_HIGH = 49_152;

/**
 * Signed values read as unsigned (a file that says Pixel Representation 0 of signed pixels): air at
 * -1,024 reads as 64,512, tissue and bone stay near 0 to 3,000, and nothing lies between. A review's
 * such scan was refused as having "no bone" and a skin "against no air", which sent the user looking
 * for what was not wrong. Said as what it is, for every class, before any work.
 */
function wrappedSigned(h: Histogram, padding: boolean, lo: number, hi: number): Absence | null {
  if (lo < 0 || hi < WRAP_HIGH) return null;
  const low = shareBelow(h, WRAP_LOW, padding);
  const high = 1 - shareBelow(h, WRAP_HIGH, padding);
  const middle = 1 - low - high;
  if (low < 0.01 || high < 0.01 || middle > 0.001) return null;
  return {
    message: `The values of this scan lie at both ends of the range of 16-bit numbers (${Math.round(low * 100)} % below ${WRAP_LOW.toLocaleString('en-US')}, ${Math.round(high * 100)} % above ${WRAP_HIGH.toLocaleString('en-US')}) with nothing between: negative values read as unsigned ones look so (air at -1,024 reads as 64,512), as when files store signed pixels but say they are unsigned (Pixel Representation 0). No tissue can be told apart on such values.`,
    action:
      'Export the scan again from the scanner or PACS; if it still looks so, its files misstate their pixel format (Pixel Representation): tell the maker of the software that wrote them.',
  };
}

/**
 * The classes this scan does not show, each with the reason. `scale` is null when the histogram
 * gave no air and soft-tissue peaks that pass airApartFromTissue (and no Hounsfield scale).
 */
export function absentClasses(
  h: Histogram,
  t: { air: number; bone: number; padding: boolean },
  scale: GreyScale | null,
  /** Whether the values may be Hounsfield units (mayBeHounsfield: a CT in HU, as far as it says). */
  hounsfieldPossible: boolean,
): Absent {
  const [lo, hi] = valueRange(h, t.padding);
  const wrapped = wrappedSigned(h, t.padding, lo, hi);
  if (wrapped) return { bone: wrapped, teeth: wrapped, airway: wrapped, 'soft-tissue': wrapped };
  const range = `its values stay between ${num(lo)} and ${num(hi)}`;
  const askBone = 'Ask for skull and all_teeth only on scans that include the bone of the head.';
  const askAir = 'Ask for airway and soft_tissue only on scans that show the air in and around the head.';
  if (!scale) {
    const evenHu =
      hounsfieldPossible && hi < BONE_CLEAR_HU
        ? `, and nothing in it reaches ${BONE_CLEAR_HU} HU, as bone does, even if its values are Hounsfield units`
        : '';
    const noAir = `this scan shows no air clearly apart from soft tissue (${range})`;
    const noBone = {
      message: `No bone or teeth can be told in this scan: ${noAir}${evenHu}; without air at one end and soft tissue above it, nothing places its grey values on a scale on which bone and teeth could be found.`,
      action: askBone,
    };
    return {
      bone: noBone,
      teeth: noBone,
      airway: { message: `No airway can be found: ${noAir}.`, action: askAir },
      'soft-tissue': {
        message: `No skin surface can be found: ${noAir}, so nothing surrounds the tissue; its surface would be the scan's cut faces.`,
        action: askAir,
      },
    };
  }
  const absent: Absent = {};
  // Hounsfield units as they are; otherwise soft tissue stands in for 0 HU and air for -1000 HU.
  const hu = huOf(scale);
  const unit = scale.hounsfield ? ' HU' : ' HU (scaled by its air and soft tissue)';
  if (shareBelow(h, t.air, t.padding) < AIR_MIN_SHARE) {
    const share = `${(shareBelow(h, t.air, t.padding) * 100).toFixed(2)} %`;
    const why = `only ${share} of this scan is air (below ${num(hu(t.air))}${unit}), too little to be the air in and around a head`;
    absent.airway = { message: `No airway can be found: ${why}.`, action: askAir };
    absent['soft-tissue'] = {
      message: `No skin surface can be found: ${why}; the surface would be the scan's cut faces.`,
      action: askAir,
    };
  }
  // Bone is also there when the values are plainly Hounsfield units (air at -1000) and a real share
  // of the scan lies above where bone clearly is.
  const clearBone =
    hounsfieldPossible &&
    lo <= HU_AIR_MAX &&
    1 - shareBelow(h, BONE_CLEAR_HU, t.padding) >= BONE_CLEAR_MIN_SHARE;
  if (hu(t.bone) < BONE_MIN_HU && !clearBone) {
    const why = `No bone was found in this scan: its denser voxels split from soft tissue at ${num(hu(t.bone))}${unit}, below bone (about ${BONE_MIN_HU} HU and above), and ${range}`;
    absent.bone = { message: `${why}.`, action: askBone };
    absent.teeth = {
      message: `${why}; teeth are found only with the bone that holds them.`,
      action: askBone,
    };
  }
  return absent;
}

/**
 * Slices further apart than this cannot show teeth: a crown is 8-10 mm high and neighbouring teeth
 * are less than a millimetre apart, so at 7.5 mm (every 5th slice of the real head CT) the
 * dentition came out as two slabs. Dental CBCT has 0.1-0.4 mm voxels, head CT 0.5-1.5 mm slices.
 */
export const TEETH_MAX_SPACING_MM = 2.5;

/** The refusal of a class the scan's voxel size cannot show, or null. */
export function resolutionRefusal(tissue: Tissue, spacing: readonly number[]): Absence | null {
  if (tissue !== 'teeth') return null;
  const coarsest = Math.max(...spacing);
  if (coarsest <= TEETH_MAX_SPACING_MM) return null;
  // Which is coarse, the pixels or the slices: a review's 2.8 mm pixels were told to thin the slices.
  const pixels = Math.max(spacing[0] ?? 0, spacing[1] ?? 0) >= coarsest;
  const what = pixels ? 'pixels are' : 'slices are';
  return {
    message: `The ${what} ${coarsest.toFixed(1)} mm apart in this scan; teeth, with crowns 8-10 mm high and less than a millimetre between them, need ${TEETH_MAX_SPACING_MM} mm or less, or they come out as a few slabs, so no teeth mesh is made.`,
    action: `Ask for all_teeth on a scan with ${pixels ? 'smaller pixels' : 'thinner slices'} (dental CBCT: 0.1-0.4 mm voxels), or leave it out.`,
  };
}

/**
 * The refusal of teeth whose planes lie between slices further apart than TEETH_MAX_SPACING_MM, or
 * null. The voxel size says the grid's step; on unevenly spaced slices rebuilt on an even grid, the
 * slices through the teeth may be wider apart (a review: 4.5 mm over the teeth of a scan 1.5 mm apart
 * elsewhere gave a mesh of three slabs, and "done").
 */
export function teethSlicesRefusal(
  mask: Uint8Array,
  volume: Pick<Volume, 'dims' | 'spacing' | 'sliceOffsets'>,
): Absence | null {
  const offsets = volume.sliceOffsets;
  if (!offsets || offsets.length < 2) return null;
  const [nx, ny, nz] = volume.dims;
  const plane = nx * ny;
  let first = -1;
  let last = -1;
  for (let k = 0; k < nz; k++) {
    const from = k * plane;
    if (mask.subarray(from, from + plane).includes(1)) {
      if (first < 0) first = k;
      last = k;
    }
  }
  if (first < 0) return null;
  const [lo, hi] = [first * volume.spacing[2], last * volume.spacing[2]];
  let widest = 0;
  for (let i = 1; i < offsets.length; i++) {
    const a = offsets[i - 1] as number;
    const b = offsets[i] as number;
    if (b > lo && a < hi) widest = Math.max(widest, b - a);
  }
  if (widest <= TEETH_MAX_SPACING_MM) return null;
  return {
    message: `The slices through the teeth of this scan are up to ${widest.toFixed(1)} mm apart (elsewhere they are closer); teeth, with crowns 8-10 mm high and less than a millimetre between them, need ${TEETH_MAX_SPACING_MM} mm or less, or they come out as a few slabs, so no teeth mesh is made.`,
    action: 'Ask for all_teeth on a scan with thinner slices through the jaws, or leave it out.',
  };
}

/** Throws teethSlicesRefusal's refusal, if any, as the job's error for the class. */
export function checkTeethSlices(
  mask: Uint8Array,
  volume: Pick<Volume, 'dims' | 'spacing' | 'sliceOffsets'>,
): void {
  const coarse = teethSlicesRefusal(mask, volume);
  if (coarse) throw new AppError('bad-input', coarse.message, { action: coarse.action });
}
