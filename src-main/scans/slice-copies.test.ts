// A slice holding another slice's image, voxel for voxel: one is a copy put in the other's place.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from './scans.test-support.js';
import type { SliceLayout } from './slice-layout.js';
import { checkNoRepeatedImages } from './slice-copies.js';
import { slicesOf } from './slices.test-support.js';
import type { Volume } from './volume.js';

const CRANIUM = join(FIXTURES, 'ct-human-cranium-teeth');

let head: Volume;
let layout: SliceLayout;
beforeAll(async () => {
  ({ volume: head, layout } = await slicesOf(CRANIUM));
});

describe('a slice holding the image of another slice', () => {
  it('is refused naming both, however alike the two are to their neighbours', () => {
    // A copy of the slice 5 away: alike enough to its neighbours for the placement check (a review).
    const plane = head.dims[0] * head.dims[1];
    const copied = Int16Array.from(head.data);
    copied.copyWithin(54 * plane, 59 * plane, 60 * plane);
    expect(() => checkNoRepeatedImages({ ...head, data: copied }, layout)).toThrow(
      /^Slice 60 of 108 \(slice060\.dcm\) holds the same image as slice 55 \(slice055\.dcm\), voxel for voxel, which no scanner makes/,
    );
  });

  it('is not the real head, nor slices of one value repeated (empty end slices)', () => {
    expect(() => checkNoRepeatedImages(head, layout)).not.toThrow();
    const plane = head.dims[0] * head.dims[1];
    const empty = Int16Array.from(head.data);
    empty.fill(-1024, 0, 3 * plane);
    expect(() => checkNoRepeatedImages({ ...head, data: empty }, layout)).not.toThrow();
    // Air clipped to one value inside a round field of view padded with another: two values, alike in
    // every slice above the head.
    const [nx, ny] = head.dims;
    const padded = Int16Array.from(head.data);
    for (let k = 0; k < 3; k++)
      for (let j = 0; j < ny; j++)
        for (let i = 0; i < nx; i++)
          padded[k * plane + j * nx + i] =
            (i - nx / 2) ** 2 + (j - ny / 2) ** 2 < (nx / 2) ** 2 ? -1000 : -3024;
    expect(() => checkNoRepeatedImages({ ...head, data: padded }, layout)).not.toThrow();
    // One voxel apart is another image (a noise-free writer's two slices may differ so little).
    const almost = Int16Array.from(head.data);
    almost.copyWithin(54 * plane, 59 * plane, 60 * plane);
    almost[54 * plane + 1000] = almost[54 * plane + 1000]! + 1;
    expect(() => checkNoRepeatedImages({ ...head, data: almost }, layout)).not.toThrow();
  });
});
