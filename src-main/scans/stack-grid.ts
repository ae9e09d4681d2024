import { dot, norm, normalize, sub } from './geometry.js';
import type { Vec3 } from './header-fields.js';

/** A gap between two neighbouring slices that is wider than the stack's usual spacing. */
export interface StackGap {
  /** 1-based number (in stack order) of the slice before the gap; the next one is `slice + 1`. */
  slice: number;
  /** Slice locations of the two slices along the slice normal (mm), as a scanner shows them. */
  fromMm: number;
  toMm: number;
  /** True distance between the two slices along the stack (mm). */
  sizeMm: number;
}

/** The words for a gap: which slices, where, how wide. */
export function gapWords(g: StackGap): string {
  const f = (v: number): string => v.toFixed(1);
  return `between slice ${g.slice} and ${g.slice + 1} (${f(g.fromMm)} to ${f(g.toMm)} mm), a ${f(g.sizeMm)} mm gap`;
}

/** Where the slices of a stack lie, and the regular grid a volume is built on from them. */
export interface StackGrid {
  /**
   * Unit direction of the stack: the line from the first slice position to the last. Under gantry
   * tilt it leans away from the slice normal; building the volume along it keeps the shear.
   */
  dir: Vec3;
  /** Each slice's distance from the first one along `dir` (mm), in stack order. */
  offsets: number[];
  /** Median distance between neighbouring slices along the stack (mm). */
  spacing: number;
  /**
   * The regular grid: `count` planes, `step` mm apart along `dir`, the first at the first slice. On
   * unevenly spaced slices the step may be finer than `spacing` (see unevenStep).
   */
  step: number;
  count: number;
  /** True when the slices are unevenly spaced and the grid planes are interpolated between them. */
  resampled: boolean;
  /** Gaps of about one missing slice or more that interpolation bridges. */
  bridged: StackGap[];
  /** Gaps too wide to bridge honestly (see maxBridgeableGap). */
  unbridgeable: StackGap[];
  /** Largest distance of a slice position from the line through the first and last (mm). */
  offLine: number;
}

/**
 * The widest gap between neighbouring slices that the volume is filled across by linear
 * interpolation. Across a gap, a surface that crosses it can only be placed by guessing; the guess is
 * off by up to about half the gap. Up to 3 times the usual spacing (one or two missing slices) that
 * error stays within about 1.5 slice spacings, the blur the scan has anyway at its own resolution. An
 * absolute bound of 4 mm beyond the usual spacing keeps coarse scans honest: a root tip or the
 * mandibular canal (2 to 3 mm across) can vanish entirely inside a wider hole.
 */
export function maxBridgeableGap(spacing: number): number {
  return Math.min(3 * spacing, spacing + 4);
}

/** Slices farther than this from the line through the stack (mm) never form one straight stack. */
const MAX_OFF_LINE_MM = 1;

/**
 * How far a slice may lie from the line through the stack and still be placed on it. The volume is
 * built on that line, so a slice off it lands up to this far from its true place: at most half a
 * pixel (under a voxel, as a surface is placed anyway), and never more than 1 mm. Real files differ
 * from a straight line only by the rounding of their written positions, micrometres.
 */
export function maxOffLineMm(pixelSpacing: readonly [number, number] | undefined): number {
  // A pixel size of 0 or less cannot be right (the fitness check says so): it sets no tolerance.
  if (!pixelSpacing || !(pixelSpacing[0] > 0 && pixelSpacing[1] > 0)) return MAX_OFF_LINE_MM;
  return Math.min(MAX_OFF_LINE_MM, 0.5 * Math.min(pixelSpacing[0], pixelSpacing[1]));
}

/** Share of a stack's gaps that makes a spacing its finest: a run of slices, not a stray pair. */
const FINEST_SHARE = 0.1;

/** A rebuilt grid has at most this many times the slices' count of planes (the engine's time). */
const MAX_PLANES_PER_SLICE = 4;

/**
 * The step of the even grid unevenly spaced slices are rebuilt on: the finest spacing a tenth of the
 * gaps have (thin slices through the jaws of a scan coarser above), so that no run of slices loses
 * its resolution to the rest. The median stands where that grid would pass `maxCount` planes or four
 * per slice. The median alone rebuilt 1.5 mm slices through the teeth on a 3 mm grid.
 */
function unevenStep(
  sortedGaps: Float64Array,
  spacing: number,
  length: number,
  slices: number,
  maxCount: number,
): number {
  const finest = sortedGaps[Math.floor(FINEST_SHARE * sortedGaps.length)] ?? spacing;
  if (!(finest < 0.95 * spacing)) return spacing;
  const count = Math.round(length / finest) + 1;
  return count <= Math.min(maxCount, MAX_PLANES_PER_SLICE * slices) ? finest : spacing;
}

/**
 * Lays a regular grid over slices at the given positions (in stack order, sorted along `normal`).
 * Evenly spaced slices (every one within 5% of a step, and at most 0.1 mm, of its place on the
 * grid) are used as they are; otherwise the grid takes the finest common spacing (unevenStep) and
 * its planes are interpolated between the two slices around them, each at its true position.
 * `maxCount` bounds the planes a rebuilt grid may have (the memory of a volume).
 */
export function stackGrid(
  positions: Vec3[],
  normal: Vec3,
  fallbackSpacing: number,
  maxCount = Infinity,
  /** Each slice's thickness (mm) where its file says it: a gap the slices' thickness covers is none. */
  thicknesses?: readonly (number | undefined)[],
): StackGrid {
  const n = positions.length;
  const first = positions[0]!;
  const span = n > 1 ? sub(positions[n - 1]!, first) : ([0, 0, 0] as Vec3);
  const dir = norm(span) > 1e-6 ? normalize(span) : normal;
  // Per slice: its offset along dir (dot(p - first, dir)) and its distance from the line (the norm
  // of p - first - offset * dir), written out: a stack has up to thousands of slices, and every
  // small array and call per slice counts before the JIT has compiled this.
  const offsets: number[] = [];
  let offLine = 0;
  for (let k = 0; k < n; k++) {
    const p = positions[k]!;
    const a = p[0] - first[0];
    const b = p[1] - first[1];
    const c = p[2] - first[2];
    const t = a * dir[0] + b * dir[1] + c * dir[2];
    offsets.push(t);
    offLine = Math.max(offLine, Math.hypot(a - dir[0] * t, b - dir[1] * t, c - dir[2] * t));
  }
  const gaps: number[] = [];
  for (let k = 1; k < n; k++) gaps.push(offsets[k]! - offsets[k - 1]!);
  const positive = new Float64Array(gaps.filter((g) => g > 1e-3)).sort();
  const m = positive.length >> 1;
  const spacing =
    positive.length === 0
      ? fallbackSpacing
      : positive.length % 2
        ? positive[m]!
        : (positive[m - 1]! + positive[m]!) / 2;
  const length = offsets[n - 1] ?? 0;

  const bridged: StackGap[] = [];
  const unbridgeable: StackGap[] = [];
  // Positions are written with few digits (4/3 mm as 1.333): a gap of exactly three steps may be a
  // micrometre over three times the median. Within the tolerance a slice has of its place on a grid
  // (below), a gap is still the one or two missing slices it is.
  const limit = maxBridgeableGap(spacing) + Math.min(0.1, 0.05 * spacing);
  for (let k = 0; k < gaps.length; k++) {
    const g = gaps[k]!;
    if (g <= spacing * 1.5) continue;
    const gap: StackGap = {
      slice: k + 1,
      fromMm: dot(positions[k]!, normal),
      toMm: dot(positions[k + 1]!, normal),
      sizeMm: g,
    };
    // Two slices whose own thickness reaches across the gap leave nothing of the patient unseen: a
    // protocol that goes on from 0.5 mm slices in 2 mm ones, 2 mm thick. Slices dropped from a series
    // keep their thickness, and their holes stay holes (a review's every fourth slice kept).
    const covered = thicknesses && Math.min(thicknesses[k] ?? 0, thicknesses[k + 1] ?? 0);
    const seen = covered !== undefined && covered > 0 && g <= covered * 1.05 + 0.01;
    (g > limit && !seen ? unbridgeable : bridged).push(gap);
  }

  if (n < 2 || length <= 1e-6) {
    return {
      dir,
      offsets,
      spacing,
      step: spacing,
      count: n,
      resampled: false,
      bridged,
      unbridgeable,
      offLine,
    };
  }
  const meanStep = length / (n - 1);
  const tolerance = Math.min(0.1, 0.05 * meanStep);
  let even = true;
  for (let k = 0; k < n && even; k++) even = Math.abs(offsets[k]! - k * meanStep) <= tolerance;
  if (even) {
    return {
      dir,
      offsets,
      spacing,
      step: meanStep,
      count: n,
      resampled: false,
      bridged,
      unbridgeable,
      offLine,
    };
  }
  const count = Math.max(2, Math.round(length / unevenStep(positive, spacing, length, n, maxCount)) + 1);
  return {
    dir,
    offsets,
    spacing,
    step: length / (count - 1),
    count,
    resampled: true,
    bridged,
    unbridgeable,
    offLine,
  };
}

/** Which slices make grid plane m: slice `k` weighted 1 - w and slice `k + 1` weighted w. */
interface PlaneSource {
  k: number;
  w: number;
}

/** For each plane of the grid, the two slices around it and the interpolation weight. */
export function planeSources(
  grid: Pick<StackGrid, 'offsets' | 'step' | 'count' | 'resampled'>,
): PlaneSource[] {
  const { offsets, step, count } = grid;
  if (!grid.resampled) return Array.from({ length: count }, (_, m) => ({ k: m, w: 0 }));
  const out: PlaneSource[] = [];
  let k = 0;
  for (let m = 0; m < count; m++) {
    const t = m * step;
    while (k < offsets.length - 2 && offsets[k + 1]! <= t) k++;
    const a = offsets[k]!;
    const b = offsets[k + 1] ?? a;
    const w = b > a ? Math.min(1, Math.max(0, (t - a) / (b - a))) : 0;
    // Snap to a slice when the plane lies on it (within a micrometre): no needless blending.
    if (w < 1e-6) out.push({ k, w: 0 });
    else if (w > 1 - 1e-6) out.push({ k: k + 1, w: 0 });
    else out.push({ k, w });
  }
  return out;
}

/**
 * The largest angle between the line of the slice positions and the images' normal. Gantry tilt
 * leans a CT stack by up to about 30°; far past that, the positions contradict the orientation (a
 * stack stepping sideways within the image plane would make a volume of no thickness).
 */
export const MAX_STACK_LEAN_DEG = 45;

/** Angle (degrees) between the stack's direction and the normal, either way along it. */
export function stackLeanDegrees(dir: Vec3, normal: Vec3): number {
  return (Math.acos(Math.min(1, Math.abs(dot(dir, normal)))) * 180) / Math.PI;
}
