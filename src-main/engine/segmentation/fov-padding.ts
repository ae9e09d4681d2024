/**
 * The padding outside a scan's reconstructed field of view. A small-field dental CBCT reconstructs a
 * cylinder and fills everything outside it with one value (declared as Pixel Padding Value, or just a
 * constant far below air). Those voxels are no anatomy: neither air nor tissue in the thresholds, and
 * the edge of the cylinder is a cut face like the box's faces. Taken as air, the wall of a 50 mm
 * cylinder through the real head CT became 64 % of an accepted "soft_tissue" surface.
 */
import { filterComponents } from './components.js';
import type { GreyScale } from './dentition.js';
import { addTaperedEdge } from './fov-taper.js';
import type { Histogram } from './histogram.js';
import { roundFieldMask, type RoundField } from './round-field.js';

/** Values from lo to hi (both included) that are padding. */
export type PaddingRange = [number, number];

/** The histogram without the declared padding values (a copy; the counts given are not changed). */
export function withoutPadding(h: Histogram, declared: PaddingRange | undefined): Histogram {
  if (!declared) return h;
  const counts = h.counts.slice();
  const b0 = Math.max(0, Math.floor((declared[0] - h.min) / h.binWidth));
  const b1 = Math.min(counts.length - 1, Math.floor((declared[1] - h.min) / h.binWidth));
  for (let b = b0; b <= b1; b++) counts[b] = 0;
  return { ...h, counts };
}

/**
 * Largest share of a scan that may lie below a spike of one value (more than 1 % of the voxels) for
 * the spike to count as the scan's floor. A few stray voxels below undeclared padding (-3024, with 3
 * voxels at -3500) hid it: the padding was then taken for air, air for soft tissue, and "bone" was
 * 83 % soft tissue.
 */
const STRAY_BELOW_FLOOR_SHARE = 0.001;

/**
 * The histogram from its floor up: the lowest value holding more than 1 % of the voxels, when fewer
 * than STRAY_BELOW_FLOOR_SHARE lie below it (those are left out), else the histogram as it is.
 */
export function fromFloor(h: Histogram): Histogram {
  let total = 0;
  for (let b = 0; b < h.counts.length; b++) total += h.counts[b] as number;
  let below = 0;
  for (let b = 0; b < h.counts.length; b++) {
    const c = h.counts[b] as number;
    if (c > 0.01 * total)
      return b === 0 ? h : { ...h, counts: h.counts.slice(b), min: h.min + b * h.binWidth };
    below += c;
    if (below > STRAY_BELOW_FLOOR_SHARE * total) return h;
  }
  return h;
}

/**
 * How far below air's peak, in distances from air to soft tissue, a value is clearly not air: noise
 * on air reaches a few tenths of that distance (with 250 HU of noise added to the real head CT, 0.9 %
 * of it lay half the distance below air), padding lies one distance and more below (-3024 HU).
 */
export const BELOW_AIR = 0.5;

/**
 * The padding values of a scan: those its files declare, else a constant floor clearly below air (the
 * lowest value, a spike of more than 1 % of the voxels, at least BELOW_AIR below air's peak). A
 * floor that is air itself (the real head CT's -1024, where its air was clipped) is not padding.
 */
export function paddingRange(
  h: Histogram,
  declared: PaddingRange | undefined,
  floorSpike: boolean,
  scale: GreyScale | null,
): PaddingRange | null {
  if (declared) return declared;
  if (!floorSpike || !scale) return null;
  return h.min < scale.air - BELOW_AIR * (scale.soft - scale.air) ? [h.min, h.min] : null;
}

/**
 * Smallest share of the scan a padded region fills: the corners outside a cylinder inscribed in the
 * box are a fifth of it. A declared padding value may also be a value air takes here and there (a
 * CBCT padding with -1000 has air voxels at exactly -1000): those are specks, and not padding.
 */
const MIN_REGION_SHARE = 0.001;

const masks = new WeakMap<
  Int16Array | Float32Array,
  { range: PaddingRange; field: RoundField | undefined; mask: Uint8Array }
>();

/**
 * One byte per voxel, 1 where the voxel is padding: a padding value, in a connected region of them
 * that reaches the box's faces (outside the field of view is outside everything) and is no speck;
 * for a round field of view found from where it lies (round-field.ts), only at its rim and beyond;
 * and the voxels of an edge that blends padding and image next to it (fov-taper.ts). Counted once
 * per volume and padding (the skin and the airway both ask).
 */
export function paddingMask(
  data: Int16Array | Float32Array,
  dims: [number, number, number],
  range: PaddingRange,
  round?: { field: RoundField; spacing: readonly number[] },
): Uint8Array {
  const had = masks.get(data);
  if (had && had.range[0] === range[0] && had.range[1] === range[1] && had.field === round?.field)
    return had.mask;
  const [lo, hi] = range;
  let mask: Uint8Array;
  if (round) mask = roundFieldMask(data, dims, round.spacing, round.field);
  else {
    mask = new Uint8Array(data.length);
    for (let i = 0; i < data.length; i++) {
      const v = data[i] as number;
      mask[i] = v >= lo && v <= hi ? 1 : 0;
    }
  }
  const minVoxels = Math.max(1, MIN_REGION_SHARE * data.length);
  filterComponents(mask, dims, ({ sizes, touchesBorder }) =>
    Uint8Array.from(sizes, (s, c) => (touchesBorder[c] && s >= minVoxels ? 1 : 0)),
  );
  // From the padding found, across an edge that blends it with the image (a resampled export).
  addTaperedEdge(data, dims, mask, round ? round.field.value : lo);
  masks.set(data, { range, field: round?.field, mask });
  return mask;
}

/** Clears the padding voxels of a mask: they are neither air nor tissue. */
export function clearPadding(mask: Uint8Array, pad: Uint8Array | null): void {
  if (!pad) return;
  for (let i = 0; i < mask.length; i++) if (pad[i]) mask[i] = 0;
}
