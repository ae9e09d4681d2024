// Metal at and far above the top of the 12-bit Hounsfield range (reviewers' crafted cases, built here
// from the real head CT). The first: 512 voxels at 32767, 0.007 % of the scan, drew Otsu's bone split up to 2986.5 HU, and the
// job made a "skull" of four cubes and said done.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Volume } from '../../scans/volume.js';
import { segmentTissue } from './tissue.js';
import { edit, realScans, thresholds } from './value-meaning.test-support.js';

let head: Volume;
beforeAll(async () => {
  ({ head } = await realScans());
});

/** Four blocks of `size` voxels a side at `value` in the lowest `slices` slices, where the teeth are. */
const withMetal = (v: Volume, value: number, slices: number, size: number): Volume =>
  edit(v, (value0, i, j, k) => {
    if (k >= slices) return value0;
    const inBlock = [
      [70, 100],
      [70, 156],
      [90, 80],
      [90, 176],
    ].some(([y, x]) => j >= y! && j < y! + size && i >= x! && i < x! + size);
    return inBlock ? value : value0;
  });

describe('metal far above the Hounsfield range', () => {
  it('weighs as little as it is in the bone level: the skull is the skull', () => {
    const real = thresholds(head);
    for (const [value, slices] of [
      [32767, 2],
      [32767, 8],
      [20000, 8],
    ] as const) {
      const t = thresholds(withMetal(head, value, slices, 8));
      expect(Math.abs(t.bone - real.bone), `${value} in ${slices} slices`).toBeLessThan(15);
      expect(t.scale?.hounsfield).toBe(true);
    }
    const metal = withMetal(head, 32767, 2, 8);
    const bone = segmentTissue(metal, 'bone', thresholds(metal));
    const reference = segmentTissue(head, 'bone', real);
    // The skull's voxels, not four blocks of 512: within 2 % of the scan without the metal.
    expect(bone.components.keptVoxels).toBeGreaterThan(0.98 * reference.components.keptVoxels);
    expect(bone.components.keptVoxels).toBeLessThan(1.02 * reference.components.keptVoxels);
  });

  it('takes more than 1 % at or above 3071 for metal where the rest reads as Hounsfield units', () => {
    // Crowns and implants, 1.4 % of the scan (a review's case), on an extended scale (20,000) or clipped
    // at the 12-bit top (3071): the skull's level. Before: refused "for too little contrast", or a bone
    // level 1,089 HU too high. A 40 x 40 block through 61 middle slices.
    const real = thresholds(head);
    const [, , slices] = head.dims;
    const mid = Math.floor(slices / 2);
    for (const value of [20000, 3071]) {
      const metal = edit(head, (v, i, j, k) =>
        Math.abs(k - mid) <= 30 && i >= 100 && i < 140 && j >= 100 && j < 140 ? value : v,
      );
      const t = thresholds(metal);
      expect(Math.abs(t.bone - real.bone), `metal at ${value}`).toBeLessThan(15);
      expect(t.scale?.hounsfield).toBe(true);
      expect(t.absent.bone).toBeUndefined();
    }
  });

  it('leaves a grey-value scan stored as CT alone: there, much lies above 3071 and is no metal', () => {
    // The real head as a CBCT may store it (Modality CT, no Rescale Type): grey values (HU + 1024) x 4,
    // up to about 16,000. Folded at 3071, its soft tissue and bone became one bin and every class was
    // refused (a reviewer's case).
    const real = thresholds(head);
    const grey = edit(head, (v) => (v + 1024) * 4);
    const t = thresholds(grey);
    expect(t.scale).not.toBeNull();
    expect(Math.abs(t.bone - (real.bone + 1024) * 4)).toBeLessThan(60);
  });
});
