import { AppError } from '../../src-shared/errors.js';
import type { SliceLayout } from './slice-layout.js';
import { fewValues, sliceName } from './slice-likeness.js';
import type { Volume } from './volume.js';

/**
 * A slice whose image is, voxel for voxel, the image of another slice of the scan: an export that
 * wrote one image twice, or a file put where another belongs. No scanner makes two images alike to
 * the voxel, as each holds its own noise. The slice-placement check tells a copy only when it is
 * unlike its neighbours; a copy of a slice five slices away (a review, 0.1-0.2 of a spacing from a
 * slice) is alike enough to them, and the job made a model with it. Planes of a few values (empty end
 * slices, air set to one value inside a field of view padded with another) are alike by nature, and
 * let be.
 */

/** Voxels apart along a plane that the first comparison reads: a twelfth of them, to sort the planes. */
const SAMPLE_STRIDE = 12;

/** A number for the plane's sampled voxels (FNV-1a over their values); planes alike to the voxel share it. */
function planeKey(d: Volume['data'], from: number, size: number): number {
  let h = 0x811c9dc5;
  for (let p = from; p < from + size; p += SAMPLE_STRIDE) {
    h ^= (d[p] as number) & 0xffff;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function samePlane(d: Volume['data'], a: number, b: number, size: number): boolean {
  for (let p = 0; p < size; p++) if (d[a + p] !== d[b + p]) return false;
  return true;
}

/**
 * Refuses, in words naming both files, a volume in which two slices hold the same image. Only on a
 * volume whose planes are the slices themselves (volume-reader.ts reads those of a rebuilt grid apart).
 */
export function checkNoRepeatedImages(v: Volume, layout: SliceLayout): void {
  const [nx, ny, nz] = v.dims;
  if (layout.stack.resampled || nz !== layout.frames.length) return;
  const size = nx * ny;
  const d = v.data;
  const seen = new Map<number, number[]>();
  for (let k = 0; k < nz; k++) {
    const key = planeKey(d, k * size, size);
    const before = seen.get(key);
    if (!before) {
      seen.set(key, [k]);
      continue;
    }
    const twin = before.find((m) => samePlane(d, m * size, k * size, size));
    if (twin === undefined || fewValues(v, k)) {
      before.push(k);
      continue;
    }
    throw new AppError(
      'bad-input',
      `Slice ${k + 1} of ${nz} (${sliceName(layout, k)}) holds the same image as slice ${twin + 1} (${sliceName(layout, twin)}), voxel for voxel, which no scanner makes: one of them is a copy put in the other's place, so no model was made of the scan.`,
      { action: 'Export the scan again from the scanner or PACS.' },
    );
  }
}
