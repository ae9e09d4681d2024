// Teeth need slices at most 2.5 mm apart where the teeth are, not only on average: a scan 1.5 mm
// apart but 4.5 mm apart through the teeth made a teeth mesh of three slabs, and "done" (a review).
import { describe, expect, it } from 'vitest';
import { teethSlicesRefusal } from './class-evidence.js';

/** A 4 x 4 grid of 12 planes 1.5 mm apart, with the mask set in planes `from`..`to`. */
function volumeWith(from: number, to: number, sliceOffsets?: number[]) {
  const dims: [number, number, number] = [4, 4, 12];
  const mask = new Uint8Array(4 * 4 * 12);
  for (let k = from; k <= to; k++) mask[k * 16 + 5] = 1;
  const volume = {
    dims,
    spacing: [1, 1, 1.5] as [number, number, number],
    ...(sliceOffsets ? { sliceOffsets } : {}),
  };
  return { mask, volume };
}

// Slices at 0, 4.5 and 9 mm, then 1.5 mm apart: the grid's planes 1, 2, 4 and 5 lie between slices
// 4.5 mm apart.
const uneven = [0, 4.5, 9, 10.5, 12, 13.5, 15, 16.5];

describe('the slices through the teeth', () => {
  it('refuses teeth in planes between slices further apart than 2.5 mm, naming the gap', () => {
    const { mask, volume } = volumeWith(1, 7, uneven);
    expect(teethSlicesRefusal(mask, volume)?.message).toMatch(
      /^The slices through the teeth of this scan are up to 4\.5 mm apart/,
    );
  });

  it('lets teeth be where the slices are close, and on an evenly spaced scan', () => {
    const { mask, volume } = volumeWith(6, 11, uneven);
    expect(teethSlicesRefusal(mask, volume)).toBeNull();
    const even = volumeWith(1, 7);
    expect(teethSlicesRefusal(even.mask, even.volume)).toBeNull();
  });
});
