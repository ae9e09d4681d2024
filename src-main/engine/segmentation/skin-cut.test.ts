// soft_tissue is the skin: refused where most of its surface would be the scan's cut faces. Crops
// inside the real head passed at 75 %, and their "skin" was a tenth skin and a tenth the airway's
// walls (a review).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Volume } from '../../scans/volume.js';
import { segmentTissue } from './tissue.js';
import { crop, realScans, thresholds } from './value-meaning.test-support.js';

let head: Volume;
beforeAll(async () => {
  ({ head } = await realScans());
});

describe('the skin of a cropped scan', () => {
  it('is refused for crops inside the head, in words giving the share against air', () => {
    for (const [from, to] of [
      [78, 178],
      [64, 192],
    ]) {
      const inside = crop(head, [from!, to!], [from!, to!], [0, head.dims[2]]);
      expect(() => segmentTissue(inside, 'soft-tissue', thresholds(inside))).toThrow(
        /^Only [23]\d % of soft_tissue's surface would lie against air/,
      );
    }
  });

  it('is made for the lower half of the head: the face and jaw with one cut face above', () => {
    const lower = crop(head, [0, 256], [0, 256], [0, 54]);
    expect(segmentTissue(lower, 'soft-tissue', thresholds(lower)).components.kept).toBeGreaterThan(0);
  });
});
