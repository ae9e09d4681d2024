// correlation() reads planes without moving them, on a loop of its own (it runs a few hundred times a
// job); it must give movedCorrelation's number for the unmoved plane, to the bit.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { commonValues, correlation, movedCorrelation, sampleStep } from './plane-correlation.js';
import { FIXTURES } from './scans.test-support.js';
import { slicesOf } from './slices.test-support.js';
import type { Volume } from './volume.js';

let head: Volume;
beforeAll(async () => {
  ({ volume: head } = await slicesOf(join(FIXTURES, 'ct-human-cranium-teeth')));
});

const still = { mirrorX: false, mirrorY: false, turn: 0, dx: 0, dy: 0 };

describe('correlation of two planes as they are', () => {
  it('is movedCorrelation unmoved, with and without a window, on the real head', () => {
    const window = commonValues(head, 0.005);
    const step = sampleStep(head);
    const nz = head.dims[2];
    for (const [a, b] of [
      [0, 1],
      [10, 11],
      [nz >> 1, (nz >> 1) + 1],
      [3, nz - 1],
    ] as const) {
      expect(correlation(head, a, b)).toBe(movedCorrelation(head, a, b, [-Infinity, Infinity], still, step));
      expect(correlation(head, a, b, window)).toBe(movedCorrelation(head, a, b, window, still, step));
    }
    // Not a check that cannot fail: far planes of the head are unlike, neighbours alike.
    expect(correlation(head, 10, 11)).toBeGreaterThan(0.9);
    expect(correlation(head, 3, nz - 1)).toBeLessThan(correlation(head, 10, 11));
  });
});
