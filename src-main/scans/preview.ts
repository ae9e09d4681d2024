import { AppError } from '../../src-shared/errors.js';
import type { SlicePlane, SlicePreview } from '../../src-shared/scans.js';
import type { Volume } from './volume.js';

type Vec3 = [number, number, number];
const scaled = (v: readonly number[], f: number): Vec3 => [v[0]! * f, v[1]! * f, v[2]! * f];
const plus = (...vs: Vec3[]): Vec3 =>
  vs.reduce<Vec3>((a, v) => [a[0] + v[0], a[1] + v[1], a[2] + v[2]], [0, 0, 0]);

/**
 * Where a rendered plane lies in the patient: the same mapping from pixels to voxels as renderPlane,
 * written as patient vectors, plus the volume's grid. Kept next to renderPlane so the two cannot drift.
 */
function placement(
  volume: Volume,
  plane: SlicePlane,
  at: number,
  superiorLast: boolean,
): Pick<SlicePreview, 'geometry' | 'grid'> {
  const [sx, sy, sz] = volume.spacing;
  const nz = volume.dims[2];
  const steps: [Vec3, Vec3, Vec3] = [
    scaled(volume.rowDir, sx),
    scaled(volume.colDir, sy),
    scaled(volume.sliceDir, sz),
  ];
  const origin: Vec3 = [...volume.origin];
  // Row r of a sagittal or coronal image is slice nz - 1 - r when the superior end was stored last.
  const top = superiorLast ? scaled(steps[2], nz - 1) : ([0, 0, 0] as Vec3);
  const down = superiorLast ? scaled(steps[2], -1) : steps[2];
  const geometry =
    plane === 'axial'
      ? { origin: plus(origin, scaled(steps[2], at)), column: steps[0], row: steps[1] }
      : plane === 'sagittal'
        ? { origin: plus(origin, scaled(steps[0], at), top), column: steps[1], row: down }
        : { origin: plus(origin, scaled(steps[1], at), top), column: steps[0], row: down };
  return { geometry, grid: { dims: [...volume.dims], origin, steps } };
}

/** Value range per volume, computed once: a volume never changes after it is read. */
const ranges = new WeakMap<Volume, [number, number]>();
export function valueRange(volume: Volume): [number, number] {
  let r = ranges.get(volume);
  if (!r) {
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of volume.data) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    r = lo <= hi ? [lo, hi] : [0, 0];
    ranges.set(volume, r);
  }
  return r;
}

export interface WindowLevel {
  window: number;
  level: number;
}

/**
 * A window that shows most of the volume's values: from the 1st to the 99.5th percentile of a
 * sample of voxels. Used when the file suggests none.
 */
export function histogramWindow(volume: Volume): WindowLevel {
  const { data } = volume;
  const step = Math.max(1, Math.floor(data.length / 200_000));
  const sample: number[] = [];
  for (let i = 0; i < data.length; i += step) sample.push(data[i]!);
  sample.sort((a, b) => a - b);
  const lo = sample[Math.floor(sample.length * 0.01)] ?? 0;
  const hi = sample[Math.min(sample.length - 1, Math.floor(sample.length * 0.995))] ?? lo + 1;
  const window = Math.max(1, hi - lo);
  return { window, level: lo + window / 2 };
}

/** Index count of a plane: axial slices, sagittal columns, coronal rows. */
function planeCount(volume: Volume, plane: SlicePlane): number {
  const [nx, ny, nz] = volume.dims;
  return plane === 'axial' ? nz : plane === 'sagittal' ? nx : ny;
}

/**
 * One 8-bit image of the volume, on the volume's regular grid (slices at their true positions; see
 * volume.ts), so sagittal and coronal views show true distances along the stack. Axial: slice
 * `index` as stored (row 0 at the top). Sagittal and coronal: column or row `index` through all
 * slices, with the head end (the superior slice) at the top whichever way the slices were stored.
 */
export function renderPlane(
  volume: Volume,
  seriesId: string,
  plane: SlicePlane,
  index: number | undefined,
  wl: WindowLevel,
): SlicePreview {
  const [nx, ny, nz] = volume.dims;
  const count = planeCount(volume, plane);
  const at = index ?? Math.floor(count / 2);
  if (!Number.isInteger(at) || at < 0 || at >= count) {
    throw new AppError(
      'bad-request',
      `There is no ${plane} slice ${at}; this scan has ${count} (0 to ${count - 1}).`,
    );
  }
  const lo = wl.level - wl.window / 2;
  const scale = 255 / Math.max(wl.window, 1e-6);
  const grey = (v: number): number => {
    const g = (v - lo) * scale;
    return g <= 0 ? 0 : g >= 255 ? 255 : Math.round(g);
  };
  const { data } = volume;
  const sliceSize = nx * ny;
  // Put the superior end on top: when slices run towards the feet, they are read in stored order.
  const superiorLast = volume.sliceDir[2] >= 0;
  const sliceAtRow = (r: number): number => (superiorLast ? nz - 1 - r : r);
  let width: number;
  let height: number;
  let out: Uint8Array;
  let spacing: [number, number];
  if (plane === 'axial') {
    width = nx;
    height = ny;
    out = new Uint8Array(width * height);
    const base = at * sliceSize;
    for (let i = 0; i < sliceSize; i++) out[i] = grey(data[base + i]!);
    spacing = [volume.spacing[0], volume.spacing[1]];
  } else if (plane === 'sagittal') {
    width = ny;
    height = nz;
    out = new Uint8Array(width * height);
    for (let r = 0; r < nz; r++) {
      const base = sliceAtRow(r) * sliceSize + at;
      for (let j = 0; j < ny; j++) out[r * width + j] = grey(data[base + j * nx]!);
    }
    spacing = [volume.spacing[1], volume.spacing[2]];
  } else {
    width = nx;
    height = nz;
    out = new Uint8Array(width * height);
    for (let r = 0; r < nz; r++) {
      const base = sliceAtRow(r) * sliceSize + at * nx;
      for (let i = 0; i < nx; i++) out[r * width + i] = grey(data[base + i]!);
    }
    spacing = [volume.spacing[0], volume.spacing[2]];
  }
  const preview: SlicePreview = {
    ...placement(volume, plane, at, superiorLast),
    valueRange: valueRange(volume),
    seriesId,
    plane,
    index: at,
    count,
    width,
    height,
    pixelSpacing: spacing,
    window: wl.window,
    level: wl.level,
    pixels: Buffer.from(out.buffer, out.byteOffset, out.byteLength).toString('base64'),
  };
  if (volume.scaleUnknown) preview.scaleUnknown = true;
  return preview;
}
