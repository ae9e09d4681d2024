/**
 * The padding outside a scan's reconstructed field of view. A small-field dental CBCT reconstructs a
 * cylinder and fills everything outside it with one value (declared as Pixel Padding Value, or just a
 * constant far below air). Those voxels are no anatomy: neither air nor tissue in the thresholds, and
 * the edge of the cylinder is a cut face like the box's faces. Taken as air, the wall of a 50 mm
 * cylinder through the real head CT became 64 % of an accepted "soft_tissue" surface.
 */
import { filterComponents } from './components.js';
import type { GreyScale } from './dentition.js';
import type { Histogram } from './histogram.js';

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

/**
 * Padding known from where it lies rather than from its value: one value fills the scan beyond a
 * distance from the axis through the planes' centres (the outside of a round field of view). Only
 * the voxels of that value beyond that distance are padding; the same value inside is air.
 */
export interface RoundPadding {
  value: number;
  beyondMm: number;
}

/** Largest share of the planes whose four corners may hold another value than the padding. */
const CORNERS_OTHER_MAX = 0.01;
/** Smallest share of a ring beyond the field of view that holds the padding value. */
const RING_PADDING_MIN = 0.999;
/** Smallest share of the scan beyond the field of view: an inscribed circle leaves a fifth of it. */
const BEYOND_MIN_SHARE = 0.05;
/** How far inside that distance, in pixels, the padding value still counts as padding (paddingMask). */
const RIM_PIXELS = 1.5;

/**
 * The padding of a round field of view whose files declare none and whose padding value is no
 * floor far below air (paddingRange): a CBCT that fills the outside with -1000 in HU, a value its
 * noisy air also takes. Taken as air, the wall of a 60 mm field of view through the real head CT
 * was 40-80 % of an accepted soft_tissue surface. The planes' corners must all hold one value,
 * and every ring around the planes' centres beyond some distance must hold only it (at least
 * BEYOND_MIN_SHARE of the scan); null otherwise. Noisy air at the corners (both real scans) is
 * no padding; air clipped to one value around a head gives a distance beyond the head, whose
 * skin then meets that "padding" at a few voxels only.
 */
export function roundFieldPadding(
  data: Int16Array | Float32Array,
  dims: readonly [number, number, number],
  spacing: readonly number[],
): RoundPadding | null {
  const [nx, ny, nz] = dims;
  const plane = nx * ny;
  const value = data[0] as number;
  let other = 0;
  for (let k = 0; k < nz; k++) {
    const o = k * plane;
    const same =
      data[o] === value &&
      data[o + nx - 1] === value &&
      data[o + plane - nx] === value &&
      data[o + plane - 1] === value;
    if (!same) other++;
  }
  if (other > CORNERS_OTHER_MAX * nz) return null;
  const rings = ringsOf(dims, spacing);
  const held = new Float64Array(rings.count);
  for (let k = 0; k < nz; k++) {
    const o = k * plane;
    for (let q = 0; q < plane; q++) {
      if (data[o + q] !== value) continue;
      const b = rings.of[q] as number;
      held[b] = (held[b] as number) + 1;
    }
  }
  let from = rings.count;
  let beyond = 0;
  for (let b = rings.count - 1; b >= 0; b--) {
    const n = (rings.size[b] as number) * nz;
    if (n === 0) continue;
    if ((held[b] as number) < RING_PADDING_MIN * n) break;
    from = b;
    beyond += n;
  }
  if (beyond < BEYOND_MIN_SHARE * data.length) return null;
  return { value, beyondMm: from * rings.stepMm };
}

/** Each position of a plane's ring: its distance from the planes' centre in steps of half a pixel. */
function ringsOf(
  dims: readonly [number, number, number],
  spacing: readonly number[],
): { of: Int32Array; size: Float64Array; count: number; stepMm: number } {
  const [nx, ny] = dims;
  const [sx, sy] = spacing as [number, number];
  const stepMm = Math.min(sx, sy) / 2;
  const cx = (nx - 1) / 2;
  const cy = (ny - 1) / 2;
  const count = Math.ceil(Math.hypot(cx * sx, cy * sy) / stepMm) + 1;
  const of = new Int32Array(nx * ny);
  const size = new Float64Array(count);
  for (let j = 0; j < ny; j++)
    for (let i = 0; i < nx; i++) {
      const b = Math.floor(Math.hypot((i - cx) * sx, (j - cy) * sy) / stepMm);
      of[i + j * nx] = b;
      size[b] = (size[b] as number) + 1;
    }
  return { of, size, count, stepMm };
}

const masks = new WeakMap<
  Int16Array | Float32Array,
  { range: PaddingRange; beyondMm: number; mask: Uint8Array }
>();

/**
 * One byte per voxel, 1 where the voxel is padding: a padding value, in a connected region of them
 * that reaches the box's faces (outside the field of view is outside everything) and is no speck;
 * for a round field of view's padding (`round`), only beyond its edge. Counted once per volume and
 * padding (the skin and the airway both ask).
 */
export function paddingMask(
  data: Int16Array | Float32Array,
  dims: [number, number, number],
  range: PaddingRange,
  round?: { beyondMm: number; spacing: readonly number[] },
): Uint8Array {
  const beyondMm = round?.beyondMm ?? 0;
  const had = masks.get(data);
  if (had && had.range[0] === range[0] && had.range[1] === range[1] && had.beyondMm === beyondMm)
    return had.mask;
  const [lo, hi] = range;
  const mask = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) {
    const v = data[i] as number;
    mask[i] = v >= lo && v <= hi ? 1 : 0;
  }
  if (round) {
    // Inside the field of view's edge the value is air's: those voxels are no padding.
    const rings = ringsOf(dims, round.spacing);
    const plane = dims[0] * dims[1];
    // The circle may sit half a pixel off the planes' centre: its rim lies up to a pixel or so inside
    // the distance beyond which every ring is padding, so the value counts as padding from there on.
    const from = beyondMm - RIM_PIXELS * 2 * rings.stepMm;
    const inside = Uint8Array.from(rings.of, (b) => ((b + 1) * rings.stepMm <= from ? 1 : 0));
    for (let o = 0; o < data.length; o += plane)
      for (let q = 0; q < plane; q++) if (inside[q] === 1) mask[o + q] = 0;
  }
  const minVoxels = Math.max(1, MIN_REGION_SHARE * data.length);
  filterComponents(mask, dims, ({ sizes, touchesBorder }) =>
    Uint8Array.from(sizes, (s, c) => (touchesBorder[c] && s >= minVoxels ? 1 : 0)),
  );
  masks.set(data, { range, beyondMm, mask });
  return mask;
}

/** Clears the padding voxels of a mask: they are neither air nor tissue. */
export function clearPadding(mask: Uint8Array, pad: Uint8Array | null): void {
  if (!pad) return;
  for (let i = 0; i < mask.length; i++) if (pad[i]) mask[i] = 0;
}
