import { describe, expect, it } from 'vitest';
import { sortSamples } from './sample-sort.js';

/** A seeded generator: the same numbers every run. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe('sortSamples', () => {
  it('orders int16 values as the typed arrays own sort does, the extremes and repeats included', () => {
    const next = lcg(7);
    for (const n of [1, 63, 64, 65, 4096, 65_536]) {
      const a = new Float32Array(n);
      for (let i = 0; i < n; i++) a[i] = Math.floor(next() * 65_536) - 32_768;
      if (n > 2) [a[0], a[1]] = [-32_768, 32_767];
      const b = Float64Array.from(a);
      expect(Array.from(sortSamples(a, true))).toEqual(Array.from(Float32Array.from(b).sort()));
      expect(Array.from(sortSamples(b, true))).toEqual(Array.from(Float64Array.from(a).sort()));
    }
  });

  it('sorts a plane of one value, and values of a narrow span', () => {
    expect(Array.from(sortSamples(new Float32Array(100).fill(-1024), true))).toEqual(Array(100).fill(-1024));
    const a = Float32Array.from({ length: 200 }, (_, i) => (i * 7) % 3);
    expect(Array.from(sortSamples(a, true))).toEqual([
      ...Array(67).fill(0),
      ...Array(67).fill(1),
      ...Array(66).fill(2),
    ]);
  });

  it('leaves values that are not int16 to the typed array sort (fractions, beyond the range)', () => {
    const a = Float32Array.from([2.5, -1e6, 0.25, 70_000, -0.5]);
    expect(Array.from(sortSamples(a, false))).toEqual([-1e6, -0.5, 0.25, 2.5, 70_000]);
  });
});
