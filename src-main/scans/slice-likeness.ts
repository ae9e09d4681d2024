import { basename } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import type { SliceLayout } from './slice-layout.js';
import type { Volume } from './volume.js';

/**
 * A slice unlike both of its neighbours while they are like each other: its image data decoded to
 * something else. Not every damage can be told by a decoder: JPEG 2000 coded data lost to zeros (the
 * codestream's markers kept) decodes without a word to a flat or noisy image, and a job made a mesh
 * with a hole through the skull where that slice lay. On the real scans every slice correlates
 * 0.87 or more with a neighbour, also at the top of the head, where neighbours two slices apart
 * correlate 0.6; a slice decoded from zeros correlates 0.0.
 */

/** Below this correlation with both neighbours a slice is unlike them. */
const UNLIKE = 0.2;
/** ...when its neighbours correlate at least this much with each other (smooth anatomy around it). */
const ALIKE = 0.6;

/** Samples of a plane the correlation reads: the planes' shape is enough (128 x 128 of a 512 x 512 slice). */
const SAMPLES = 128 * 128;

/** Pearson correlation of two planes, over an even grid of about SAMPLES of their voxels. */
function correlation(v: Volume, a: number, b: number): number {
  const [nx, ny] = v.dims;
  const step = Math.max(1, Math.floor(Math.sqrt((nx * ny) / SAMPLES)));
  const plane = nx * ny;
  const d = v.data;
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
      const x = d[ra + i] as number;
      const y = d[rb + i] as number;
      sa += x;
      sb += y;
      saa += x * x;
      sbb += y * y;
      sab += x * y;
      n++;
    }
  }
  const va = saa / n - (sa / n) ** 2;
  const vb = sbb / n - (sb / n) ** 2;
  // A flat plane is like no image: correlation 0 (a neighbour as flat is told apart by its twin).
  if (!(va > 0 && vb > 0)) return va === vb && sa === sb ? 1 : 0;
  return (sab / n - (sa / n) * (sb / n)) / Math.sqrt(va * vb);
}

/**
 * Refuses, in words naming its file, a volume with a slice unlike both of its neighbours (see above).
 * Only on a volume whose planes are the slices themselves (evenly spaced); a resampled plane blends
 * two slices, and its damage is not told here.
 */
export function checkSlicesAlike(v: Volume, layout: SliceLayout): void {
  const nz = v.dims[2];
  if (layout.stack.resampled || nz !== layout.frames.length || nz < 3) return;
  let before = correlation(v, 0, 1);
  for (let k = 1; k < nz - 1; k++) {
    const after = correlation(v, k, k + 1);
    if (before < UNLIKE && after < UNLIKE) {
      const around = correlation(v, k - 1, k + 1);
      if (around >= ALIKE) {
        const f = layout.frames[k]!;
        const which =
          f.header.numberOfFrames > 1
            ? `frame ${f.frameIndex + 1} of ${basename(f.header.path)}`
            : basename(f.header.path);
        throw new AppError(
          'bad-input',
          `The image of slice ${k + 1} of ${nz} (${which}) is like neither slice beside it (it correlates ${before.toFixed(2)} and ${after.toFixed(2)} with them, while they correlate ${around.toFixed(2)} with each other): its image data is damaged, so no model was made of the scan.`,
          { action: 'Export the scan again from the scanner or PACS.' },
        );
      }
    }
    before = after;
  }
}
