// The airway runs on the head's middle plane. Crops of the real head CT without the pharynx or the
// nasal cavity made an "airway" of the mastoid air cells of one temporal bone (a review).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Volume } from '../../scans/volume.js';
import { segmentTissue } from './tissue.js';
import { crop, realScans, thresholds } from './value-meaning.test-support.js';

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

  it("refuses air where the scan does not show the head's width", () => {
    // 77 mm around one temporal bone, as an ear CT: the head reaches every side of the scan.
    const ear = crop(head, [60, 140], [40, 120], [5, 45]);
    expect(() => segmentTissue(ear, 'airway', thresholds(ear))).toThrow(
      /does not show the head's full width/,
    );
  });
});
