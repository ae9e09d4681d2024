import { describe, expect, it } from 'vitest';
import { componentsAbove, enclosedInSlices, filterComponents, keepLarge } from './components.js';
import { histogram, otsuThreshold } from './histogram.js';
import { deriveThresholds, segmentTissue } from './tissue.js';

describe('otsuThreshold', () => {
  it('splits two grey-value populations between them, halfway between integers', () => {
    const data = new Int16Array(10_000);
    for (let i = 0; i < data.length; i++) data[i] = i % 3 === 0 ? 900 + (i % 50) : 100 + (i % 40);
    const t = otsuThreshold(histogram(data));
    expect(t).toBeGreaterThan(139);
    expect(t).toBeLessThan(900);
    expect((t as number) % 1).toBe(0.5);
  });

  it('works on float data and within a range', () => {
    const data = Float32Array.from({ length: 9000 }, (_, i) => [0.1, 5.2, 9.7][i % 3]! + (i % 7) * 0.01);
    const h = histogram(data);
    const low = otsuThreshold(h, { below: 8 });
    expect(low).toBeGreaterThan(0.16);
    expect(low).toBeLessThan(5.2);
    const high = otsuThreshold(h, { above: 5 });
    expect(high).toBeGreaterThan(5.26);
    expect(high).toBeLessThan(9.7);
  });

  it('takes the middle of an empty gap between two values, where a surface between them lies', () => {
    // Without noise any level in the gap splits alike; its lower end put surfaces into the denser side.
    const data = Int16Array.from({ length: 1000 }, (_, i) => (i % 4 === 0 ? 1200 : -1000));
    expect(otsuThreshold(histogram(data))).toBe(99.5);
    const floats = Float32Array.from({ length: 1000 }, (_, i) => (i % 4 === 0 ? 1 : 0));
    expect(otsuThreshold(histogram(floats))).toBeCloseTo(0.5, 3);
  });

  it('gives null when there is nothing to split', () => {
    expect(otsuThreshold(histogram(new Int16Array(100).fill(7)))).toBeNull();
  });
});

describe('a scan of two values', () => {
  it('reads bone in air as bone, and air in padding as no tissue at all', () => {
    const two = (low: number, high: number) =>
      deriveThresholds(
        Int16Array.from({ length: 8000 }, (_, i) => (i % 10 < 3 ? high : low)),
        'CT',
      );
    const ball = two(-1000, 1000);
    expect(ball.scale).toMatchObject({ hounsfield: true });
    expect(ball.absent.bone).toBeUndefined();
    // A review: a blank scan of air (-1000) in padding of -1024 had its box saved as skin.
    const blank = two(-1024, -1000);
    expect(blank.scale).toBeNull();
    expect(blank.absent['soft-tissue']?.message).toMatch(/^No skin surface can be found/);
    expect(blank.absent.bone).toBeDefined();
  });

  it('takes the lowest of a few values for air, not padding, on a scale not in Hounsfield units', () => {
    // A review's phantom in grey values (Rescale Type US): its floor left out as padding, its tissue
    // was read as air, its bone as tissue and its teeth as bone.
    // 60 % air, 30 % tissue, 9 % bone, 1 % teeth, as in a head.
    const data = Int16Array.from({ length: 10_000 }, (_, i) =>
      i % 100 < 60 ? 0 : i % 100 < 90 ? 1040 : i % 100 < 99 ? 2200 : 3500,
    );
    const t = deriveThresholds(data, 'CT', undefined, { rescaleType: 'US' });
    expect(t.padding).toBeNull();
    expect([t.air > 0, t.air < 1040, t.bone > 1040, t.bone < 2200]).toEqual([true, true, true, true]);
    expect(t.teeth).toBeGreaterThan(2200);
    expect(t.teeth).toBeLessThan(3500);
  });
});

describe('values that are not numbers', () => {
  it('are refused in words by the histogram, before any threshold is derived from them', () => {
    for (const odd of [NaN, Infinity, -Infinity]) {
      const data = Float32Array.from({ length: 1000 }, (_, i) => (i % 3 === 0 ? 900.5 : -1000.5));
      data[17] = odd;
      data[400] = odd;
      expect(() => histogram(data)).toThrow(/2 of the scan's 1000 voxel values are not finite numbers/);
    }
  });

  it('count as not above a level when components are found, and the search ends', () => {
    // A row of NaN between two runs of bone: before, the search stopped on the first NaN for good.
    const n = 8;
    const data = new Float32Array(n * n * n).fill(-1000);
    for (let k = 2; k < 6; k++)
      for (let j = 2; j < 6; j++) for (let i = 1; i < 7; i++) data[i + j * n + k * n * n] = 1000;
    for (let i = 0; i < n; i++) data[i + 3 * n + 3 * n * n] = NaN;
    const mask = new Uint8Array(data.length);
    const r = componentsAbove(data, 300, [n, n, n], keepLarge(0), mask);
    expect(r.keptVoxels).toBe(4 * 4 * 6 - 6);
    expect(mask[3 + 3 * n + 3 * n * n]).toBe(0);
  });
});

describe('filterComponents', () => {
  it('labels 6-connected pieces: voxels touching only along an edge are separate', () => {
    const dims: [number, number, number] = [6, 6, 3];
    const mask = new Uint8Array(6 * 6 * 3);
    const at = (i: number, j: number, k: number): number => i + j * 6 + k * 36;
    // A 2x2x2 cube, a single voxel diagonal to it (edge contact only), and a voxel on the border.
    for (const [i, j, k] of [
      [1, 1, 0],
      [2, 1, 0],
      [1, 2, 0],
      [2, 2, 0],
      [1, 1, 1],
      [2, 1, 1],
      [1, 2, 1],
      [2, 2, 1],
    ] as const)
      mask[at(i + 1, j + 1, k + 1)] = 1;
    mask[at(4, 4, 1)] = 1;
    mask[at(0, 5, 1)] = 1;
    const seen: { sizes: number[]; border: number[] } = { sizes: [], border: [] };
    const r = filterComponents(mask, dims, (s) => {
      seen.sizes = Array.from(s.sizes);
      seen.border = Array.from(s.touchesBorder);
      return keepLarge(0.5)(s);
    });
    expect(seen.sizes.sort((a, b) => a - b)).toEqual([1, 1, 8]);
    expect(r).toMatchObject({ components: 3, kept: 1, keptVoxels: 8, largest: 8 });
    expect(mask.reduce((a, b) => a + b, 0)).toBe(8);
    expect(mask[at(4, 4, 1)]).toBe(0);
    // The cube reaches the last slice (k = 2): border; so does the lone voxel in column 0.
    expect(seen.border.reduce((a, b) => a + b, 0)).toBe(2);
  });
});

describe('componentsAbove', () => {
  it('keeps exactly what thresholding and then filterComponents keep', () => {
    const dims: [number, number, number] = [23, 17, 11];
    const n = 23 * 17 * 11;
    // Blobs of varying size from a deterministic pseudo-random field, values on both sides of 0.
    let seed = 12345;
    const rnd = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const data = new Int16Array(n);
    for (let i = 0; i < n; i++) data[i] = Math.round((rnd() - 0.6) * 1000);
    const expected = new Uint8Array(n);
    for (let i = 0; i < n; i++) expected[i] = data[i]! > 0 ? 1 : 0;
    const keep = keepLarge(0.2, 3);
    const want = filterComponents(expected, dims, keep);
    const mask = new Uint8Array(n);
    const { runs, ...got } = componentsAbove(data, 0, dims, keep, mask);
    expect(got).toEqual(want);
    // The runs are the mask's voxels.
    let inRuns = 0;
    for (let i = 0; i < runs.rowStart[dims[1] * dims[2]]!; i++) inRuns += runs.en[i]! - runs.st[i]!;
    expect(inRuns).toBe(want.keptVoxels);
    expect(want.components).toBeGreaterThan(want.kept);
    expect(want.kept).toBeGreaterThan(0);
    expect(Array.from(mask)).toEqual(Array.from(expected));
  });
});

describe('enclosedInSlices', () => {
  it('fills holes that tissue closes within a slice, not gaps open to the slice edge', () => {
    const n = 9;
    const mask = new Uint8Array(n * n * 2);
    for (let j = 2; j <= 6; j++)
      for (let i = 2; i <= 6; i++) {
        const ring = i === 2 || i === 6 || j === 2 || j === 6;
        if (ring) mask[i + j * n] = 1; // slice 0: closed ring
        if (ring && !(i === 4 && j === 2)) mask[n * n + i + j * n] = 1; // slice 1: ring with a gap
      }
    const holes = new Uint8Array(mask.length);
    expect(enclosedInSlices(mask, [n, n, 2], holes)).toBe(9);
    expect(holes[4 + 4 * n]).toBe(1);
    expect(holes[n * n + 4 + 4 * n]).toBe(0);
  });
});

/** A synthetic head: air around a ball of soft tissue with a bone shell, an air cavity and a dense "tooth". */
function phantom(): { data: Int16Array; dims: [number, number, number]; spacing: [number, number, number] } {
  const n = 48;
  const data = new Int16Array(n * n * n);
  for (let k = 0; k < n; k++)
    for (let j = 0; j < n; j++)
      for (let i = 0; i < n; i++) {
        const r = Math.hypot(i - 24, j - 24, k - 24);
        const tooth = Math.hypot(i - 24, j - 10, k - 24) < 3;
        let v = -1000;
        if (r < 20) v = 40;
        if (r < 17 && r >= 14) v = 900;
        if (tooth) v = 2500;
        if (r < 6) v = -950;
        // A little deterministic noise, as on a real scan.
        data[i + j * n + k * n * n] = v + ((i * 7 + j * 13 + k * 5) % 21) - 10;
      }
  return { data, dims: [n, n, n], spacing: [0.5, 0.5, 0.5] };
}

describe('segmentTissue', () => {
  const vol = phantom();
  const t = deriveThresholds(vol.data);
  const count = (m: Uint8Array): number => m.reduce((a, b) => a + b, 0);

  it('derives air < bone < teeth thresholds between the populations', () => {
    expect(t.air).toBeGreaterThan(-940);
    expect(t.air).toBeLessThan(30);
    expect(t.bone).toBeGreaterThan(50);
    expect(t.bone).toBeLessThan(890);
    expect(t.teeth).toBeGreaterThan(910);
    expect(t.teeth).toBeLessThan(2490);
  });

  it('finds the bone shell, the dense tooth, the skin and the enclosed air space', () => {
    const bone = segmentTissue(vol, 'bone', t);
    const shell = (4 / 3) * Math.PI * (17 ** 3 - 14 ** 3);
    expect(count(bone.mask) / shell).toBeGreaterThan(0.9);
    expect(count(bone.mask) / shell).toBeLessThan(1.15);
    const teeth = segmentTissue(vol, 'teeth', t);
    expect(count(teeth.mask)).toBeGreaterThan(80);
    expect(count(teeth.mask)).toBeLessThan(130);
    const soft = segmentTissue(vol, 'soft-tissue', t);
    // The air cavity is filled: the skin surface encloses the whole ball.
    expect(count(soft.mask) / ((4 / 3) * Math.PI * 20 ** 3)).toBeCloseTo(1, 1);
    const air = segmentTissue(vol, 'airway', t);
    expect(air.polarity).toBe('below');
    expect(count(air.mask) / ((4 / 3) * Math.PI * 6 ** 3)).toBeCloseTo(1, 1);
  });
});
