// The airway runs on the head's middle plane. Crops of the real head CT without the pharynx or the
// nasal cavity made an "airway" of the mastoid air cells of one temporal bone (a review); a first
// check refused the airway of a dental field of view, and of a head with an arm beside it (a review).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Volume } from '../../scans/volume.js';
import { segmentTissue } from './tissue.js';
import {
  crop,
  edit,
  outsideCylinder,
  realScans,
  thresholds,
  turnedInPlane,
} from './value-meaning.test-support.js';

let head: Volume;
beforeAll(async () => {
  ({ head } = await realScans());
});

describe('where an airway can be', () => {
  it('takes the air on the middle of the whole head for the airway', () => {
    expect(segmentTissue(head, 'airway', thresholds(head)).components.kept).toBeGreaterThan(0);
  });

  it('refuses air to the side of the head, naming how far', () => {
    // The back half of the head: its width is seen, its largest enclosed air lies to one side.
    const back = crop(head, [0, 256], [0, 150], [0, head.dims[2]]);
    expect(() => segmentTissue(back, 'airway', thresholds(back))).toThrow(
      /^The largest air space enclosed in this scan lies \d+ mm to the side of the head's middle/,
    );
  });

  it("refuses air to the side of the head whatever the grid's angle, and keeps the middle's: the side is the patient's", () => {
    // Measured along the voxel axes, the back half exported on a grid turned 30 or 40 degrees made
    // an airway of the mastoid cells (a review); on the grid as read it lies 30 mm to the side.
    const back = crop(head, [0, 256], [0, 150], [0, head.dims[2]]);
    for (const turned of [turnedInPlane(back, 30), turnedInPlane(back, 40)])
      expect(() => segmentTissue(turned, 'airway', thresholds(turned))).toThrow(
        /^The largest air space enclosed in this scan lies [1-9]\d mm to the side of the head's middle/,
      );
    // The whole head on such a grid keeps its airway.
    const whole = turnedInPlane(head, 30);
    expect(segmentTissue(whole, 'airway', thresholds(whole)).components.kept).toBeGreaterThan(0);
  });

  it("takes the air for the airway where the scan does not show the head's width: its middle is not known", () => {
    // A 150 mm round field of view on the jaws and nose cuts the cheeks: the usual orthodontic scan,
    // whose airway a first version refused (a review).
    const jaws = outsideCylinder(crop(head, [0, 256], [0, 256], [0, 74]), 75, -3024);
    expect(segmentTissue(jaws, 'airway', thresholds(jaws)).components.kept).toBeGreaterThan(0);
  });

  it('finds the middle from the head alone, not from an arm beside it', () => {
    // A block of soft tissue beside the head, apart from it, at the airway's height (a raised arm).
    const [nx, ny] = head.dims;
    const wide = edit(head, (v, i, j) =>
      i >= nx - 20 && i < nx - 4 && j > ny / 4 && j < (3 * ny) / 4 ? 40 : v,
    );
    expect(segmentTissue(wide, 'airway', thresholds(wide)).components.kept).toBeGreaterThan(0);
  });
});
