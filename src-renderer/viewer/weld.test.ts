import { describe, expect, it } from 'vitest';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { AppError } from '../../src-shared/errors.js';
import { fixtureMesh } from './fixture-meshes.test-support.js';
import { buildIndexedMesh, weldVertices } from './weld.js';

const soup = (...tris: number[][]): Float32Array => new Float32Array(tris.flat());

describe('weldVertices', () => {
  it('merges the repeated corners of a triangle soup into shared vertices', () => {
    // Two triangles of a unit square sharing an edge: 6 corners, 4 distinct points.
    const positions = soup([0, 0, 0, 1, 0, 0, 1, 1, 0], [0, 0, 0, 1, 1, 0, 0, 1, 0]);
    const { positions: p, index, degenerate } = weldVertices(positions, null);
    expect(p.length / 3).toBe(4);
    expect(index).toBeInstanceOf(Uint16Array);
    expect([...index]).toEqual([0, 1, 2, 0, 2, 3]);
    expect(degenerate).toBe(0);
  });

  it('treats -0 and +0 as the same coordinate', () => {
    const { positions } = weldVertices(
      soup([0, 0, 0, 1, 0, 0, 0, 1, 0], [-0, -0, 0, 1, 0, -0, 0, 1, 0]),
      null,
    );
    expect(positions.length / 3).toBe(3);
  });

  it('remaps an existing index and counts triangles whose corners collapse', () => {
    // Vertices 0 and 3 are the same point: triangle (0, 3, 1) becomes degenerate.
    const positions = soup([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0]);
    const r = weldVertices(positions, [0, 1, 2, 0, 3, 1]);
    expect(r.positions.length / 3).toBe(3);
    expect([...r.index]).toEqual([0, 1, 2, 0, 0, 1]);
    expect(r.degenerate).toBe(1);
  });

  it('refuses coordinates that are not numbers, and indices past the vertices', () => {
    expect(() => weldVertices(soup([0, 0, 0, NaN, 0, 0, 0, 1, 0]), null)).toThrow(/not numbers/);
    expect(() => weldVertices(soup([0, 0, 0, Infinity, 0, 0, 0, 1, 0]), null)).toThrow(AppError);
    expect(() => weldVertices(soup([0, 0, 0, 1, 0, 0, 0, 1, 0]), [0, 1, 7])).toThrow(
      /vertex the mesh does not have/,
    );
    expect(() => weldVertices(soup([0, 0, 0, 1, 0, 0]), [0, 1])).toThrow(/not a multiple of 3/);
  });

  it('grows its table past the first guess and switches to 32-bit indices when needed', () => {
    // No shared corners at all: 3 x 30,000 distinct points, far beyond the initial table for a soup.
    const n = 30_000;
    const positions = new Float32Array(n * 9);
    for (let i = 0; i < positions.length; i++) positions[i] = i;
    const r = weldVertices(positions, null);
    expect(r.positions.length).toBe(positions.length);
    expect(r.index).toBeInstanceOf(Uint32Array);
    expect(r.positions.every((v, i) => v === positions[i])).toBe(true);
  });

  it('keeps every corner of the bunny where it was, with under half the memory of the soup', () => {
    const g = new STLLoader().parse(fixtureMesh('bunny-binary.stl'));
    const source = g.getAttribute('position').array as Float32Array;
    const mesh = buildIndexedMesh(source, null);
    expect(mesh.triangles).toBe(69_451);
    // The bunny's PLY has 35,947 vertices, some unused: the STL cannot weld to more.
    expect(mesh.positions.length / 3).toBeLessThanOrEqual(35_947);
    expect(mesh.positions.length / 3).toBeGreaterThan(34_000);
    for (let c = 0; c < mesh.index.length; c++) {
      const v = mesh.index[c]!;
      for (let k = 0; k < 3; k++) {
        if (mesh.positions[v * 3 + k] !== source[c * 3 + k]) throw new Error(`corner ${c} moved`);
      }
    }
    const soupBytes = source.byteLength + g.getAttribute('normal').array.byteLength;
    const weldedBytes = mesh.positions.byteLength + mesh.normals.byteLength + mesh.index.byteLength;
    expect(weldedBytes / soupBytes).toBeLessThan(0.5);
    g.computeBoundingBox();
    const box = g.boundingBox!;
    expect(mesh.bounds).toEqual([box.min.x, box.min.y, box.min.z, box.max.x, box.max.y, box.max.z]);
    g.computeBoundingSphere();
    // Around the box centre, as three's computeBoundingSphere.
    expect(mesh.sphere[3]).toBeCloseTo(g.boundingSphere!.radius, 6);
  });
});

describe('buildIndexedMesh', () => {
  it('refuses an empty mesh and one made only of degenerate triangles', () => {
    expect(() => buildIndexedMesh(new Float32Array(0), null)).toThrow(/no triangles/);
    expect(() => buildIndexedMesh(soup([0, 0, 0, 0, 0, 0, 1, 1, 1]), null)).toThrow(
      /only triangle of the mesh is degenerate/,
    );
  });
});
