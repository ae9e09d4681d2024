import { describe, expect, it } from 'vitest';
import type { Mesh } from './iso-surface.js';
import { badEdgeVertices, countSurfaces } from './mesh-checks.js';

// A closed, consistently wound tetrahedron: every edge drawn once each way.
const TETRA = [0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2];
const bad = (ix: number[], vertices = 4): number[] =>
  Array.from(badEdgeVertices(Uint32Array.from(ix), vertices));

describe('badEdgeVertices', () => {
  it('finds nothing on a closed, consistently wound surface', () => {
    expect(bad(TETRA)).toEqual([]);
  });

  it('marks the rim of a hole', () => {
    expect(bad(TETRA.slice(3))).toEqual([0, 1, 2]);
  });

  it('marks the edges of a triangle wound the wrong way', () => {
    const flipped = [...TETRA];
    [flipped[1], flipped[2]] = [flipped[2]!, flipped[1]!];
    expect(bad(flipped)).toEqual([0, 1, 2]);
  });

  it('marks an edge shared by three or four triangles', () => {
    // A second tetrahedron (0, 1, 4, 5)'s faces around edge 0-1 make it shared four times.
    const second = [0, 4, 1, 0, 1, 5, 1, 4, 5, 0, 5, 4];
    expect(bad([...TETRA, ...second], 6)).toEqual([0, 1]);
    expect(bad([...TETRA, 0, 4, 1], 6)).toEqual([0, 1, 4]);
  });

  it('marks a degenerate triangle and a duplicated one', () => {
    expect(bad([...TETRA, 0, 0, 1])).toContain(0);
    expect(bad([...TETRA, 0, 2, 1])).toEqual([0, 1, 2]);
  });

  it('ignores vertices no triangle uses', () => {
    expect(bad(TETRA, 10)).toEqual([]);
  });

  it('judges only the edges with a flagged end when asked to, from either end', () => {
    const flags = (vertices: number, ...on: number[]): Uint8Array => {
      const f = new Uint8Array(vertices);
      for (const v of on) f[v] = 1;
      return f;
    };
    const near = (ix: number[], vertices: number, ...on: number[]): number[] =>
      Array.from(badEdgeVertices(Uint32Array.from(ix), vertices, flags(vertices, ...on)));
    const holed = TETRA.slice(3); // rim 0-1-2
    expect(near(holed, 4, 0, 1, 2, 3)).toEqual(bad(holed));
    // Vertex 0 alone: its two rim edges (2->0 drawn to it, 0->1 drawn from it), with their far ends.
    expect(near(holed, 4, 0)).toEqual([0, 1, 2]);
    // Vertex 3 is not on the rim: none of its edges is bad.
    expect(near(holed, 4, 3)).toEqual([]);
    // A second tetrahedron far away, with a flipped face: flagging the first one's vertices finds nothing.
    const flipped = TETRA.map((v) => v + 4);
    [flipped[1], flipped[2]] = [flipped[2]!, flipped[1]!];
    expect(near([...TETRA, ...flipped], 8, 0, 1, 2, 3)).toEqual([]);
    expect(near([...TETRA, ...flipped], 8, 4)).toEqual([4, 5, 6]);
  });
});

describe('countSurfaces', () => {
  // A tetrahedron's corners, shifted along x.
  const corners = (dx: number): number[] =>
    [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1].map((c, i) => (i % 3 === 0 ? c + dx : c));
  const mesh = (positions: number[], indices: number[]): Mesh => ({
    positions: Float32Array.from(positions),
    indices: Uint32Array.from(indices),
  });

  it('counts separate pieces, and pieces that meet only at equal positions as one', () => {
    const two = mesh([...corners(0), ...corners(5)], [...TETRA, ...TETRA.map((v) => v + 4)]);
    expect(countSurfaces(two)).toBe(2);
    // The second tetrahedron's first corner is a copy of the first one's second corner (as in STL).
    const touching = mesh([...corners(0), ...corners(1)], [...TETRA, ...TETRA.map((v) => v + 4)]);
    expect(countSurfaces(touching)).toBe(1);
  });

  it('takes -0 and +0 for the same position and ignores vertices no triangle uses', () => {
    const p = [...corners(0), ...corners(5)];
    p[12] = -0;
    p[13] = 0;
    p[14] = 0;
    const m = mesh([...p, 9, 9, 9], [...TETRA, ...TETRA.map((v) => v + 4)]);
    expect(countSurfaces(m)).toBe(1);
  });
});
