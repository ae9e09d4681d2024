import { AppError } from '../../src-shared/errors.js';
import type { SlicePlane, SlicePreview } from '../../src-shared/scans.js';
import type { Volume } from './volume.js';

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
export function planeCount(volume: Volume, plane: SlicePlane): number {
  const [nx, ny, nz] = volume.dims;
  return plane === 'axial' ? nz : plane === 'sagittal' ? nx : ny;
}

/**
 * One 8-bit image of the volume. Axial: slice `index` as stored (row 0 at the top). Sagittal and
 * coronal: column or row `index` through all slices, with the head end (the superior slice) at
 * the top whichever way the slices were stored.
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
  return {
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
}
