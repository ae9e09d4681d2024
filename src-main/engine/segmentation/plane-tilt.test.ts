// Enclosed air (the airway, and the skin's filling) is found in the planes nearest the patient's axial
// plane. On a tilted gantry's slices, or an oblique export, those planes lean: past 15° the nasal
// cavity opened to the air in front of the face and the airway lost half its volume (a review).
import { describe, expect, it } from 'vitest';
import { axialPlaneTilt } from './head-foot.js';
import { refuseTiltedPlanes } from './region-checks.js';

const rad = (deg: number): number => (deg * Math.PI) / 180;
/** Slices tilted about the patient's left-right axis, stacked along z (a tilted gantry's). */
const tilted = (deg: number) => ({
  rowDir: [1, 0, 0],
  colDir: [0, Math.cos(rad(deg)), -Math.sin(rad(deg))],
  sliceDir: [0, 0, 1],
});

describe("the planes' tilt from axial", () => {
  it('is 0 for axial, coronal and sagittal exports, and the tilt of tilted slices', () => {
    expect(axialPlaneTilt({})).toBe(0);
    expect(axialPlaneTilt({ rowDir: [1, 0, 0], colDir: [0, 0, -1], sliceDir: [0, 1, 0] })).toBeCloseTo(0, 9);
    expect(axialPlaneTilt({ rowDir: [0, 1, 0], colDir: [0, 0, -1], sliceDir: [1, 0, 0] })).toBeCloseTo(0, 9);
    expect(axialPlaneTilt(tilted(25))).toBeCloseTo(25, 6);
    expect(axialPlaneTilt(tilted(-12))).toBeCloseTo(12, 6);
  });

  it('refuses the airway and the skin past 15°, in words naming the angle', () => {
    expect(() => refuseTiltedPlanes(tilted(15), 'airway')).not.toThrow();
    expect(() => refuseTiltedPlanes(tilted(20), 'airway')).toThrow(
      /^The scan's planes lie at 20° to the patient's axial plane .* so no airway mesh was made\.$/,
    );
    expect(() => refuseTiltedPlanes(tilted(-30), 'soft-tissue')).toThrow(/no soft-tissue mesh was made/);
  });
});
