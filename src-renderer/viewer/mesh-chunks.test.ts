import { describe, expect, it } from 'vitest';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { CHUNK_TRIANGLES, chunkMesh, planChunks, spatialOrder } from './mesh-chunks.js';
import { fixtureMesh } from './fixture-meshes.test-support.js';
import { buildIndexedMesh } from './weld.js';

describe('planChunks', () => {
  it('cuts the triangles into runs of at most the given size, covering all', () => {
    expect(planChunks(5, 2)).toEqual([
      [0, 2],
      [2, 2],
      [4, 1],
    ]);
    expect(planChunks(5, 100)).toEqual([[0, 5]]);
    expect(planChunks(0, 4)).toEqual([]);
  });
});

describe('spatialOrder', () => {
  it('puts triangles of the same region next to each other, whatever order the file lists them in', () => {
    // Four tiny triangles: two near the origin, two near (10, 10, 10), listed alternately.
    const positions = new Float32Array([0, 0, 0, 0.1, 0, 0, 0, 0.1, 0, 10, 10, 10, 9.9, 10, 10, 10, 9.9, 10]);
    const index = [0, 1, 2, 3, 4, 5, 0, 2, 1, 3, 5, 4];
    const order = [...spatialOrder(positions, index, [0, 0, 0, 10, 10, 10])];
    expect(order).toEqual([0, 2, 1, 3]);
  });
});

describe('chunkMesh on the 400k-triangle skull', () => {
  const g = new STLLoader().parse(fixtureMesh('skull-invesalius-cranium-400k-binary.stl'));
  const soup = g.attributes.position!.array as Float32Array;
  const welded = buildIndexedMesh(soup.slice(), null);
  const globalIndex = welded.index.slice();
  const positions = welded.positions.slice();
  const mesh = chunkMesh({ ...welded, index: welded.index.slice() });

  it('covers every triangle once, in chunks of at most CHUNK_TRIANGLES triangles', () => {
    expect(mesh.chunks.length).toBe(Math.ceil(399_757 / CHUNK_TRIANGLES));
    let next = 0;
    for (const c of mesh.chunks) {
      expect(c.start).toBe(next);
      expect(c.count).toBeLessThanOrEqual(CHUNK_TRIANGLES * 3);
      next += c.count;
    }
    expect(next).toBe(399_757 * 3);
  });

  it('draws the same triangles as the welded mesh, through chunk-local numbers', () => {
    const key = (p: ArrayLike<number>, corner: (c: number) => number): string =>
      [0, 1, 2].map((c) => [0, 1, 2].map((k) => p[corner(c) * 3 + k]).join(',')).join(';');
    const before = new Set<string>();
    for (let t = 0; t < globalIndex.length / 3; t++) {
      before.add(key(positions, (c) => globalIndex[t * 3 + c]!));
    }
    let checked = 0;
    let outside = 0;
    for (const c of mesh.chunks) {
      for (let i = c.start; i < c.start + c.count; i += 3) {
        // Counted, not asserted one by one: 1.2 million expect() calls take a minute.
        for (let k = 0; k < 3; k++) if (!(mesh.index[i + k]! < c.vertexCount)) outside++;
        // Every 97th triangle, from every chunk, keeps the test quick.
        if ((i / 3) % 97 !== 0) continue;
        expect(before.has(key(mesh.positions, (k) => c.firstVertex + mesh.index[i + k]!))).toBe(true);
        checked++;
      }
    }
    expect(outside).toBe(0);
    expect(checked).toBeGreaterThan(4000);
  });

  it('stores few vertices twice: chunks of nearby triangles share only their borders', () => {
    const welded = positions.length / 3;
    expect(mesh.chunks.reduce((n, c) => n + c.vertexCount, 0)).toBe(mesh.positions.length / 3);
    expect(mesh.positions.length / 3).toBeLessThan(welded * 1.1);
  });

  it('numbers each chunk’s vertices in 16 bits when every chunk has fewer than 65,536', () => {
    expect(globalIndex).toBeInstanceOf(Uint32Array);
    expect(mesh.index).toBeInstanceOf(Uint16Array);
  });

  it('gives each chunk bounds inside the mesh’s bounds', () => {
    for (const c of mesh.chunks) {
      for (let k = 0; k < 3; k++) {
        expect(c.bounds[k]).toBeGreaterThanOrEqual(mesh.bounds[k]!);
        expect(c.bounds[k + 3]).toBeLessThanOrEqual(mesh.bounds[k + 3]!);
      }
      expect(c.sphere[3]).toBeGreaterThan(0);
    }
  });
});
