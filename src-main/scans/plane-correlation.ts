import { sortSamples } from './sample-sort.js';
import type { Volume } from './volume.js';

/** Samples of a plane the correlation reads: the planes' shape is enough (128 x 128 of a 512 x 512 slice). */
export const SAMPLES = 128 * 128;

/** The distance between samples along a row and between sampled rows: about SAMPLES per plane. */
export function sampleStep(v: Pick<Volume, 'dims'>): number {
  const [nx, ny] = v.dims;
  return Math.max(1, Math.floor(Math.sqrt((nx * ny) / SAMPLES)));
}

/** Values are read clamped to [low, high]; none by default. */
export type ValueWindow = readonly [number, number];
const WHOLE: ValueWindow = [-Infinity, Infinity];

/**
 * Pearson correlation of two planes, over an even grid of about SAMPLES of their voxels, each value
 * clamped to `window` first.
 */
export function correlation(v: Volume, a: number, b: number, window: ValueWindow = WHOLE): number {
  // The same samples, sums and order as movedCorrelation unmoved (so the same number), without the
  // move's arithmetic per sample: every job reads a few hundred of these, 60-80 ms that way.
  const [nx, ny] = v.dims;
  const step = sampleStep(v);
  const d = v.data;
  const [lo, hi] = window;
  const plane = nx * ny;
  let sa = 0;
  let sb = 0;
  let saa = 0;
  let sbb = 0;
  let sab = 0;
  let n = 0;
  for (let j = 0; j < ny; j += step) {
    const ra = a * plane + j * nx;
    const rb = b * plane + j * nx;
    for (let i = 0; i < nx; i += step) {
      const x0 = d[ra + i] as number;
      const y0 = d[rb + i] as number;
      const x = x0 < lo ? lo : x0 > hi ? hi : x0;
      const y = y0 < lo ? lo : y0 > hi ? hi : y0;
      sa += x;
      sb += y;
      saa += x * x;
      sbb += y * y;
      sab += x * y;
      n++;
    }
  }
  return pearson(n, sa, sb, saa, sbb, sab);
}

/**
 * The values between the `share` and 1 - `share` quantiles of the volume's values (a sparse grid on
 * every plane): a window that keeps the scan's tissues and cuts what is rare and extreme.
 */
export function commonValues(v: Volume, share: number): ValueWindow {
  const [nx, ny, nz] = v.dims;
  // About 65,536 values from every plane, a sparser grid on more planes: 0.5 % of them is 330 values.
  const base = sampleStep(v);
  const perPlane = Math.ceil(nx / base) * Math.ceil(ny / base);
  const step = base * Math.max(1, Math.ceil(Math.sqrt((nz * perPlane) / 2 ** 16)));
  const values = new Float64Array(nz * Math.ceil(nx / step) * Math.ceil(ny / step));
  let n = 0;
  for (let k = 0; k < nz; k++)
    for (let j = 0; j < ny; j += step)
      for (let i = 0; i < nx; i += step) values[n++] = v.data[k * nx * ny + j * nx + i] as number;
  const sorted = sortSamples(values.subarray(0, n), v.data instanceof Int16Array);
  const at = (q: number): number => sorted[Math.min(n - 1, Math.floor(q * n))]!;
  return [at(share), at(1 - share)];
}

/**
 * A plane moved within itself: mirrored (across its middle column or row), turned about its middle
 * (degrees, clockwise as the image is shown: rows run down), then shifted (pixels).
 */
export interface PlaneMove {
  mirrorX: boolean;
  mirrorY: boolean;
  turn: number;
  dx: number;
  dy: number;
}

/**
 * Pearson correlation of plane `a` with plane `b` moved by `move` (b's voxel at (i, j) shown at its
 * moved place), over an even grid `step` voxels apart of the samples where both lie, values clamped to
 * `window`. Fewer than a quarter of the samples overlapping: 0.
 */
export function movedCorrelation(
  v: Volume,
  a: number,
  b: number,
  window: ValueWindow,
  move: PlaneMove,
  step: number,
): number {
  const [nx, ny] = v.dims;
  const plane = nx * ny;
  const d = v.data;
  const [lo, hi] = window;
  let sa = 0;
  let sb = 0;
  let saa = 0;
  let sbb = 0;
  let sab = 0;
  let n = 0;
  let all = 0;
  // The turn undone about the plane's middle (nearest voxel).
  const cos = Math.cos((move.turn * Math.PI) / 180);
  const sin = Math.sin((move.turn * Math.PI) / 180);
  const cx = (nx - 1) / 2;
  const cy = (ny - 1) / 2;
  const turned = move.turn !== 0;
  for (let j = 0; j < ny; j += step) {
    // The voxel of b seen at (i, j) of a: undo the shift, the turn, then the mirror.
    const ry = j - move.dy - cy;
    for (let i = 0; i < nx; i += step) {
      all++;
      const rx = i - move.dx - cx;
      const ix = turned ? Math.round(cos * rx + sin * ry + cx) : rx + cx;
      const jy = turned ? Math.round(cos * ry - sin * rx + cy) : ry + cy;
      if (jy < 0 || jy >= ny || ix < 0 || ix >= nx) continue;
      const ib = move.mirrorX ? nx - 1 - ix : ix;
      const jb = move.mirrorY ? ny - 1 - jy : jy;
      const x0 = d[a * plane + j * nx + i] as number;
      const y0 = d[b * plane + jb * nx + ib] as number;
      const x = x0 < lo ? lo : x0 > hi ? hi : x0;
      const y = y0 < lo ? lo : y0 > hi ? hi : y0;
      sa += x;
      sb += y;
      saa += x * x;
      sbb += y * y;
      sab += x * y;
      n++;
    }
  }
  if (n < all / 4) return 0;
  return pearson(n, sa, sb, saa, sbb, sab);
}

/**
 * Pearson correlation of n pairs from their sums (of a, b, a², b², ab). A flat set is like no image:
 * 0, but 1 with one as flat at the same value (a neighbour as flat is told apart by its twin).
 */
export function pearson(n: number, sa: number, sb: number, saa: number, sbb: number, sab: number): number {
  const va = saa / n - (sa / n) ** 2;
  const vb = sbb / n - (sb / n) ** 2;
  if (!(va > 0 && vb > 0)) return va === vb && sa === sb ? 1 : 0;
  return (sab / n - (sa / n) * (sb / n)) / Math.sqrt(va * vb);
}
