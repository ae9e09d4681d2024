/**
 * Where the dentition starts on the grey-value scale, and a check that what was found is a dentition.
 *
 * Enamel and dentine overlap compact bone on the Hounsfield scale. InVesalius' CT threshold presets
 * (invesalius/presets.py, the ranges Mimics uses too) give "Enamel (Adult)" 1553 to 2850 HU and
 * "Compact Bone (Adult)" 662 to 1988 HU; the dentition class starts at the middle of their overlap,
 * 1770.5 HU, so that a voxel is called tooth only when it is nearer the enamel range than the bone
 * range. On the real human head CT of the fixtures (ct-human-cranium-teeth) every piece above it of
 * 10 mm³ or more lies in the lowest 10 mm of the scan, where the teeth are; 20 HU lower the first
 * pieces of the cranial vault enter. Specks of the skull base and cheekbones pass it too (up to
 * 1931 HU): pieces without enamel, which dentition-place.ts leaves out. An Otsu split of the bone voxels, used before, lands near 970 HU there: in cortical bone.
 *
 * CBCT grey values are not Hounsfield units. There the same level is placed on the scan's own scale
 * by its air and soft-tissue peaks (grey values are roughly linear in attenuation), which is a guess:
 * the band check below refuses the result when the class is spread over the head instead of lying in
 * the compact band of the teeth.
 */
import { AppError } from '../../../src-shared/errors.js';
import { headFootSteps, type HeadFootGeometry } from './head-foot.js';
import type { Histogram } from './histogram.js';

/** Middle of the overlap of InVesalius' "Enamel (Adult)" (1553 HU) and "Compact Bone (Adult)" (1988 HU). */
export const DENTITION_MIN_HU = 1770.5;

/**
 * Height of the band that holds a dentition: two rows of teeth with the dense dentine of their roots.
 * A canine, the longest tooth, is about 27 mm from cusp to apex, and the rows overlap in occlusion.
 * The cranial vault spans 100 mm and more.
 */
export const DENTITION_BAND_MM = 50;

/**
 * Share of the dentition class that must lie in its densest DENTITION_BAND_MM band. On the fixture's
 * real head CT: 100 % at 1770.5 HU, 98.8 % at 1750 HU, 97.5 % at 1700 HU (pieces of the cranial vault
 * enter), 36 % at the old histogram split of 972 HU. A speck or two elsewhere (a filling, an earring)
 * stays below the 2 % allowed.
 */
const DENTITION_MIN_BAND_SHARE = 0.98;

/** Peaks of the scan's histogram that fix its grey-value scale. */
export interface GreyScale {
  /** Most frequent value of air (outside the patient, airway). */
  air: number;
  /** Most frequent value of soft tissue (between air and bone). */
  soft: number;
  /** True for a CT whose values are Hounsfield units: air near -1000 and soft tissue near 0. */
  hounsfield: boolean;
}

/** Most frequent value among those in (above, upTo], counted in bins about 1/1000 of the range wide. */
function peak(h: Histogram, above: number, upTo: number): number | null {
  const n = h.counts.length;
  const group = Math.max(1, Math.round(n / 1000));
  const b0 = Math.max(0, Math.floor((above - h.min) / h.binWidth) + 1);
  const b1 = Math.min(n - 1, Math.floor((upTo - h.min) / h.binWidth));
  let best = -1;
  let bestAt = -1;
  for (let g = b0; g <= b1; g += group) {
    let c = 0;
    for (let b = g; b < Math.min(g + group, b1 + 1); b++) c += h.counts[b] as number;
    if (c > best) {
      best = c;
      bestAt = g;
    }
  }
  if (best <= 0) return null;
  const width = Math.min(group, b1 + 1 - bestAt);
  return h.min + (bestAt + width / 2) * h.binWidth;
}

/**
 * The scan's grey-value scale from its histogram: the air peak below the air threshold (without the
 * padding value outside the field of view) and the soft-tissue peak between air and bone.
 */
export function findGreyScale(
  h: Histogram,
  t: { air: number; bone: number; padding: boolean },
  /** Whether the values may be Hounsfield units at all (mayBeHounsfield). */
  hounsfieldPossible: boolean,
): GreyScale | null {
  const air = peak(h, t.padding ? h.min : h.min - h.binWidth, t.air);
  const soft = peak(h, t.air, t.bone);
  if (air === null || soft === null || !(soft > air)) return null;
  // Air is -1000 HU; soft tissue from fat (-100) to muscle (+40): the mode lies near 0.
  const hounsfield = hounsfieldPossible && Math.abs(air + 1000) <= 100 && Math.abs(soft) <= 100;
  return { air, soft, hounsfield };
}

/**
 * Whether a scan's values may be Hounsfield units: a CT whose Rescale Type, when stated, is HU. A
 * CBCT whose grey values are 0.92 x HU (air at -920) says so with Rescale Type US; taken as Hounsfield
 * units, its teeth were cut at 1770.5 grey values, 1924 HU.
 */
export function mayBeHounsfield(modality: string | undefined, rescaleType: string | undefined): boolean {
  return modality === 'CT' && (!rescaleType || rescaleType === 'HU');
}

/**
 * What a head's soft-tissue peak stands for when grey values are scaled to Hounsfield units: brain
 * lies at 25 to 40 HU, muscle at 40 to 60, fat at -100, and the peak of the real head CT among the
 * fixtures at +24 to +42 HU. Water's 0 HU, used before, set the teeth's level about 60 HU too high on
 * such a head: 3 mm off the roots, and a sixth less of the teeth (a review).
 */
export const SOFT_TISSUE_PEAK_HU = 30;

/** Lower edge of enamel and dentine in the scan's grey values. */
export function dentitionLevel(scale: GreyScale): number {
  if (scale.hounsfield) return DENTITION_MIN_HU;
  // Air for -1000 HU, the soft-tissue peak for SOFT_TISSUE_PEAK_HU, and a straight line between.
  return scale.air + ((DENTITION_MIN_HU + 1000) / (SOFT_TISSUE_PEAK_HU + 1000)) * (scale.soft - scale.air);
}

/** Hounsfield units of a grey value: as they are, or scaled from the air and soft-tissue peaks. */
export function huOf(scale: GreyScale): (value: number) => number {
  if (scale.hounsfield) return (v) => v;
  return (v) => -1000 + ((v - scale.air) * (SOFT_TISSUE_PEAK_HU + 1000)) / (scale.soft - scale.air);
}

/** The dentition class in words, for refusals: its level and the scale it is on. */
export function dentitionWords(level: number, scale: GreyScale): string {
  return `grey value above ${level}${scale.hounsfield ? ' HU' : ', scaled from its air and soft-tissue values'}`;
}

export type BandGeometry = HeadFootGeometry;

/** Where a class lies along the patient's head-foot axis (DICOM z), in 1 mm bins. */
export interface BandProfile {
  /** Height of the scan itself along that axis, mm. */
  scanHeight: number;
  /** From the lowest to the highest set voxel, mm. */
  height: number;
  /** Share of the set voxels in the densest DENTITION_BAND_MM band (1 when there are none). */
  inBand: number;
}

export function bandProfile(mask: Uint8Array, g: BandGeometry): BandProfile {
  const [nx, ny, nz] = g.dims;
  const { di, dj, dk, lo, height: scanHeight } = headFootSteps(g);
  const bins = new Float64Array(Math.max(1, Math.ceil(scanHeight)) + 1);
  let total = 0;
  for (let k = 0; k < nz; k++)
    for (let j = 0; j < ny; j++) {
      const row = (k * ny + j) * nx;
      const base = j * dj + k * dk - lo;
      for (let i = 0; i < nx; i++) {
        if (mask[row + i] === 0) continue;
        const b = Math.floor(base + i * di);
        bins[b] = (bins[b] as number) + 1;
        total++;
      }
    }
  if (total === 0) return { scanHeight, height: 0, inBand: 1 };
  let first = 0;
  while (bins[first] === 0) first++;
  let last = bins.length - 1;
  while (bins[last] === 0) last--;
  let best = 0;
  let sum = 0;
  for (let b = 0; b < bins.length; b++) {
    sum += bins[b] as number;
    if (b >= DENTITION_BAND_MM) sum -= bins[b - DENTITION_BAND_MM] as number;
    if (sum > best) best = sum;
  }
  return { scanHeight, height: last - first + 1, inBand: best / total };
}

/**
 * Refuses a dentition class that is not a compact band: then the level found bone, not teeth.
 * Returns the profile for the job's note.
 */
export function checkDentitionBand(
  mask: Uint8Array,
  g: BandGeometry,
  level: number,
  scale: GreyScale,
): BandProfile {
  const band = bandProfile(mask, g);
  if (band.inBand >= DENTITION_MIN_BAND_SHARE) return band;
  const how = dentitionWords(level, scale);
  throw new AppError(
    'bad-input',
    `The densest tissue of this scan (${how}) is not where teeth are: only ${Math.floor(band.inBand * 100)} % of it lies in one ${DENTITION_BAND_MM} mm band, ` +
      `the rest spreads over ${Math.round(band.height)} mm from top to bottom like bone, so no teeth mesh was made.`,
    {
      action: 'Ask for skull (all bone) instead, or use a remote segmentation service for the teeth.',
    },
  );
}
