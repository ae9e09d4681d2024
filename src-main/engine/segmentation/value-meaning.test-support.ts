// Variants of the real scans built in memory, as the audits built them as files: what the tests of
// a scan's values (value-meaning.test.ts) and of its padding (fov-padding.test.ts) start from.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { FIXTURES, PHANTOM_DIR } from '../../scans/scans.test-support.js';
import { readVolume } from '../../scans/volume-reader.js';
import type { Volume } from '../../scans/volume.js';
import { deriveThresholds, type Thresholds } from './tissue.js';

/** A real human head CT in Hounsfield units, with the upper teeth in its lowest ~10 mm (MANIFEST.md). */
const CRANIUM = join(FIXTURES, 'ct-human-cranium-teeth');

const readDir = async (dir: string): Promise<Volume> =>
  readVolume((await readdir(dir)).sort().map((f) => join(dir, f)));

/** The real head CT and the phantom, read as the engine reads them. */
export async function realScans(): Promise<{ head: Volume; phantom: Volume }> {
  const [head, phantom] = await Promise.all([readDir(CRANIUM), readDir(PHANTOM_DIR)]);
  return { head, phantom };
}

/** The real scan with each voxel's value changed by `f(value, i, j, k)`, and other facts. */
export function edit(
  v: Volume,
  f: (value: number, i: number, j: number, k: number) => number,
  facts: Partial<Volume> = {},
): Volume {
  const [nx, ny, nz] = v.dims;
  const data = new Int16Array(v.data.length);
  for (let k = 0, p = 0; k < nz; k++)
    for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++, p++) data[p] = f(v.data[p] as number, i, j, k);
  return { ...v, ...facts, data };
}

export const thresholds = (v: Volume): Thresholds => deriveThresholds(v.data, v.modality, undefined, v);

/**
 * The real scan as a small-field CBCT stores it: every voxel further than `radius` mm from the
 * slices' centre set to `value`, declared as Pixel Padding Value when `declared`.
 */
export function outsideCylinder(
  v: Volume,
  radius: number,
  value: number,
  declared = true,
  /** The cylinder's axis from the slices' centre, mm along rows and columns. */
  [cx, cy] = [0, 0],
): Volume {
  const [nx, ny] = v.dims;
  const [sx, sy] = v.spacing;
  const out = (i: number, j: number): boolean =>
    Math.hypot((i - (nx - 1) / 2) * sx - cx, (j - (ny - 1) / 2) * sy - cy) > radius;
  return edit(v, (x, i, j) => (out(i, j) ? value : x), declared ? { padding: [value, value] } : {});
}

/**
 * The volume with its rows and slices swapped, as a stack of sagittal-like planes: voxel (i, j, k)
 * of the result is voxel (i, k, j) of `v`, and the directions follow.
 */
export function acrossRows(v: Volume): Volume {
  const [nx, ny, nz] = v.dims;
  const data = new Int16Array(v.data.length);
  for (let k = 0, p = 0; k < ny; k++)
    for (let j = 0; j < nz; j++)
      for (let i = 0; i < nx; i++, p++) data[p] = v.data[i + nx * (k + ny * j)] as number;
  return {
    ...v,
    data,
    dims: [nx, nz, ny],
    spacing: [v.spacing[0], v.spacing[2], v.spacing[1]],
    colDir: v.sliceDir,
    sliceDir: v.colDir,
  };
}

/** A seeded source of numbers in [0, 1) (mulberry32), so a noisy case is the same every run. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal number (Box-Muller). */
export const gaussian = (random: () => number): number =>
  Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());

/** Voxels [i0, i1) x [j0, j1) x [k0, k1) of the real scan, placed where they were in the patient. */
export function crop(v: Volume, [i0, i1]: number[], [j0, j1]: number[], [k0, k1]: number[]): Volume {
  const [nx, ny] = v.dims;
  const dims: [number, number, number] = [i1! - i0!, j1! - j0!, k1! - k0!];
  const data = new Int16Array(dims[0] * dims[1] * dims[2]);
  let o = 0;
  for (let k = k0!; k < k1!; k++)
    for (let j = j0!; j < j1!; j++)
      for (let i = i0!; i < i1!; i++) data[o++] = v.data[i + nx * (j + ny * k)] as number;
  const [sx, sy, sz] = v.spacing;
  const at = (a: number): number =>
    v.origin[a]! + i0! * sx * v.rowDir[a]! + j0! * sy * v.colDir[a]! + k0! * sz * v.sliceDir[a]!;
  return { ...v, data, dims, origin: [at(0), at(1), at(2)] };
}

/**
 * The scan as software exports it on a grid turned `deg` degrees in the slices' plane (dental
 * software aligns it to the arch): each slice resampled (bilinear) onto the turned grid, the pixel
 * the smaller of the two, large enough to hold the whole slice, `fill` where the slice is not; the
 * anatomy stays where it was in the patient. The reviewer's in-plane variants, built in memory.
 */
export function turnedInPlane(v: Volume, deg: number, fill = -1024): Volume {
  const [nx, ny, nz] = v.dims;
  const [sx, sy] = v.spacing;
  const [cos, sin] = [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)];
  const s = Math.min(sx, sy);
  // The slice's corners (mm along its rows and columns) on the turned axes.
  const xs = [0, (nx - 1) * sx];
  const ys = [0, (ny - 1) * sy];
  const cu = xs.flatMap((x) => ys.map((y) => x * cos + y * sin));
  const cv = xs.flatMap((x) => ys.map((y) => -x * sin + y * cos));
  const [u0, v0] = [Math.min(...cu), Math.min(...cv)];
  const mu = Math.ceil((Math.max(...cu) - u0) / s) + 1;
  const mv = Math.ceil((Math.max(...cv) - v0) / s) + 1;
  const data = new Int16Array(mu * mv * nz);
  for (let k = 0, o = 0; k < nz; k++)
    for (let b = 0; b < mv; b++)
      for (let a = 0; a < mu; a++, o++) {
        const [pu, pv] = [u0 + a * s, v0 + b * s];
        const fi = (pu * cos - pv * sin) / sx;
        const fj = (pu * sin + pv * cos) / sy;
        const [i, j] = [Math.floor(fi), Math.floor(fj)];
        const at = (ii: number, jj: number): number =>
          ii < 0 || jj < 0 || ii >= nx || jj >= ny ? fill : (v.data[ii + nx * (jj + ny * k)] as number);
        const [wi, wj] = [fi - i, fj - j];
        const top = at(i, j) * (1 - wi) + at(i + 1, j) * wi;
        const bottom = at(i, j + 1) * (1 - wi) + at(i + 1, j + 1) * wi;
        data[o] = Math.round(top * (1 - wj) + bottom * wj);
      }
  const along = (x: number, y: number): [number, number, number] =>
    [0, 1, 2].map((c) => x * v.rowDir[c]! + y * v.colDir[c]!) as [number, number, number];
  const first = along(u0 * cos - v0 * sin, u0 * sin + v0 * cos);
  return {
    ...v,
    data,
    dims: [mu, mv, nz],
    spacing: [s, s, v.spacing[2]],
    origin: [0, 1, 2].map((c) => v.origin[c]! + first[c]!) as [number, number, number],
    rowDir: along(cos, sin),
    colDir: along(-sin, cos),
  };
}
