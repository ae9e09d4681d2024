import { describe, expect, it } from 'vitest';
import { extractIsoSurface, type Mesh } from './iso-surface.js';
import { edgeReport, signedVolume } from './mesh-checks.test-support.js';
import { repairPinches } from './pinch-repair.js';
import { simplifyMesh } from './simplify.js';

async function ball(radius: number, spacing: number): Promise<Mesh> {
  const n = Math.ceil((2 * radius + 6) / spacing);
  const c = (n - 1) / 2;
  const data = new Float32Array(n * n * n);
  for (let k = 0; k < n; k++)
    for (let j = 0; j < n; j++)
      for (let i = 0; i < n; i++)
        data[i + j * n + k * n * n] = radius - spacing * Math.hypot(i - c, j - c, k - c);
  const o = -c * spacing;
  return extractIsoSurface(
    {
      data,
      dims: [n, n, n],
      spacing: [spacing, spacing, spacing],
      origin: [o, o, o],
      rowDir: [1, 0, 0],
      colDir: [0, 1, 0],
      sliceDir: [0, 0, 1],
    },
    0,
    { workers: 0 },
  );
}

const closed = { boundaryEdges: 0, nonManifoldEdges: 0, inconsistentEdges: 0 };

describe('simplifyMesh', () => {
  it('cuts triangles within the error in mm and keeps the surface closed and edge-manifold', async () => {
    const mesh = await ball(20, 0.4);
    const before = mesh.indices.length / 3;
    const s = await simplifyMesh(mesh, 0.1);
    const after = s.indices.length / 3;
    expect(after).toBeLessThan(before / 4);
    expect(s.errorMm).toBeLessThanOrEqual(0.1);
    expect(edgeReport(s.indices, s.positions.length / 3)).toMatchObject(closed);
    // meshoptimizer's error is measured at the kept vertices (which stay on the surface); flat triangles
    // spanning a curved surface sag in between, so centroids may stray somewhat further.
    let worst = 0;
    for (let t = 0; t < s.indices.length; t += 3) {
      const c = [0, 1, 2].map(
        (a) =>
          [0, 1, 2].reduce(
            (sum, k) => sum + (s.positions[(s.indices[t + k] as number) * 3 + a] as number),
            0,
          ) / 3,
      );
      worst = Math.max(worst, Math.abs(Math.hypot(c[0]!, c[1]!, c[2]!) - 20));
    }
    expect(worst).toBeLessThan(0.2);
    expect(signedVolume(s) / signedVolume(mesh)).toBeGreaterThan(0.985);
  });

  it('leaves the mesh alone at error 0', async () => {
    const mesh = await ball(5, 1);
    const s = await simplifyMesh(mesh, 0);
    expect(s.indices).toBe(mesh.indices);
    expect(s.unsimplified).toBe(true);
  });
});

/** Closed unit cube made of 12 triangles, facing outward, at offset (ox, oy, oz); ids from `id(corner)`. */
function cube(ox: number, oy: number, oz: number, id: (p: [number, number, number]) => number): number[] {
  const quads = [
    [0, 2, 3, 1],
    [4, 5, 7, 6],
    [0, 1, 5, 4],
    [2, 6, 7, 3],
    [0, 4, 6, 2],
    [1, 3, 7, 5],
  ];
  const corner = (c: number): number => id([ox + (c & 1), oy + ((c >> 1) & 1), oz + ((c >> 2) & 1)]);
  return quads.flatMap(([a, b, c, d]) => [
    corner(a!),
    corner(b!),
    corner(c!),
    corner(a!),
    corner(c!),
    corner(d!),
  ]);
}

/** Numbers corners by position: the same point gets the same vertex. */
function vertexIds(): {
  ids: Map<string, number>;
  pos: number[];
  id: (p: [number, number, number]) => number;
} {
  const ids = new Map<string, number>();
  const pos: number[] = [];
  const id = (p: [number, number, number]): number => {
    const k = p.join(',');
    if (!ids.has(k)) {
      ids.set(k, ids.size);
      pos.push(...p);
    }
    return ids.get(k) as number;
  };
  return { ids, pos, id };
}

describe('repairPinches', () => {
  it('pulls apart two closed surfaces that share an edge and drops a folded flap', () => {
    const { ids, pos, id } = vertexIds();
    // Cube B touches cube A along the edge x = 1, y = 1: four triangles share it.
    const tris = [...cube(0, 0, 0, id), ...cube(1, 1, 0, id)];
    const first = tris.slice(0, 3);
    tris.push(first[0]!, first[1]!, first[2]!, first[0]!, first[2]!, first[1]!);
    const mesh = { positions: Float32Array.from(pos), indices: Uint32Array.from(tris) };
    expect(edgeReport(mesh.indices, ids.size).nonManifoldEdges).toBeGreaterThan(0);
    const fixed = repairPinches(mesh);
    expect(fixed).not.toBeNull();
    expect(edgeReport(fixed!.indices, fixed!.positions.length / 3)).toMatchObject(closed);
    expect(fixed!.indices.length / 3).toBe(24);
    // The two vertices of the shared edge got a copy each, a hair away from the original.
    expect(fixed!.positions.length / 3).toBe(ids.size + 2);
    const copy = Array.from(fixed!.positions.slice(ids.size * 3, ids.size * 3 + 3));
    const d = Math.min(...[0, 1].map((z) => Math.hypot(copy[0]! - 1, copy[1]! - 1, copy[2]! - z)));
    expect(d).toBeGreaterThan(0);
    expect(d).toBeLessThan(0.01);
    expect(signedVolume(fixed!)).toBeCloseTo(2, 2);
  });

  it('leaves a defect that is not a pinch to the caller: a hole comes back as null, an intact surface as it is', () => {
    const { pos, id } = vertexIds();
    const tris = cube(0, 0, 0, id);
    const whole = { positions: Float32Array.from(pos), indices: Uint32Array.from(tris) };
    expect(repairPinches(whole)).toBe(whole);
    const holed = { positions: whole.positions, indices: Uint32Array.from(tris.slice(3)) };
    expect(repairPinches(holed)).toBeNull();
  });
});
