import { describe, expect, it } from 'vitest';
import { areaWeightedNormals } from './mesh-geometry.js';

describe('areaWeightedNormals', () => {
  it('points away from a counter-clockwise face and has unit length', () => {
    const positions = new Float32Array([0, 0, 0, 2, 0, 0, 0, 2, 0]);
    const n = areaWeightedNormals(positions, [0, 1, 2]);
    expect([...n]).toEqual([0, 0, 1, 0, 0, 1, 0, 0, 1]);
  });

  it('weights faces by area at a shared vertex', () => {
    // A large face in the xy plane and a small one in the xz plane meet at the origin.
    const positions = new Float32Array([0, 0, 0, 10, 0, 0, 0, 10, 0, 0, 0, -1, 1, 0, 0]);
    const n = areaWeightedNormals(positions, [0, 1, 2, 0, 3, 4]);
    expect(n[2]!).toBeGreaterThan(0.99);
    expect(Math.hypot(n[0]!, n[1]!, n[2]!)).toBeCloseTo(1, 6);
  });

  it('leaves a zero normal on a vertex used only by a degenerate triangle', () => {
    const positions = new Float32Array([0, 0, 0, 1, 0, 0, 2, 0, 0]);
    expect([...areaWeightedNormals(positions, [0, 1, 2])]).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });
});
