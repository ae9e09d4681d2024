import { afterAll, describe, expect, it } from 'vitest';
import { createSlabPool, extractIsoSurface, type ExtractedMesh, type SlabPool } from './iso-surface.js';
import { edgeReport, signedVolume } from './mesh-checks.test-support.js';
import { simplifyMesh } from './simplify.js';
import { assignSlabs, simplifyInParts, simplifyPart, type SimplifyPartResult } from './simplify-parts.js';

/** An ellipsoid with semi-axes (a, b, c) mm, extracted at `spacing` mm: longest along x. */
async function ellipsoid(a: number, b: number, c: number, spacing: number): Promise<ExtractedMesh> {
  const n = [a, b, c].map((r) => Math.ceil((2 * r + 6) / spacing)) as [number, number, number];
  const mid = n.map((k) => (k - 1) / 2);
  const data = new Float32Array(n[0] * n[1] * n[2]);
  for (let k = 0; k < n[2]; k++)
    for (let j = 0; j < n[1]; j++)
      for (let i = 0; i < n[0]; i++) {
        const x = (i - mid[0]!) * spacing;
        const y = (j - mid[1]!) * spacing;
        const z = (k - mid[2]!) * spacing;
        // Roughly a distance in mm near the surface (exact for a sphere).
        data[i + j * n[0] + k * n[0] * n[1]] = Math.min(a, b, c) * (1 - Math.hypot(x / a, y / b, z / c));
      }
  return extractIsoSurface(
    {
      data,
      dims: n,
      spacing: [spacing, spacing, spacing],
      origin: [-mid[0]! * spacing, -mid[1]! * spacing, -mid[2]! * spacing],
      rowDir: [1, 0, 0],
      colDir: [0, 1, 0],
      sliceDir: [0, 0, 1],
    },
    0,
    { workers: 0 },
  );
}

const closed = { boundaryEdges: 0, nonManifoldEdges: 0, inconsistentEdges: 0 };
let pool: SlabPool | undefined;
afterAll(async () => pool?.close());

describe('simplification in slabs', () => {
  it('cuts along the longest axis into slabs of about equal triangle counts', async () => {
    const mesh = await ellipsoid(24, 10, 10, 0.5);
    const tcount = mesh.indices.length / 3;
    for (const parts of [2, 3]) {
      const slab = assignSlabs(mesh, parts);
      const counts = new Array<number>(parts).fill(0);
      for (const s of slab) counts[s]!++;
      for (const n of counts) expect(Math.abs(n / tcount - 1 / parts)).toBeLessThan(0.11);
      // Slabs follow x: the mean x of every triangle's first vertex grows from slab to slab.
      const meanX = counts.map(() => 0);
      for (let t = 0; t < tcount; t++)
        meanX[slab[t]!]! += mesh.positions[mesh.indices[t * 3]! * 3]! / counts[slab[t]!]!;
      for (let s = 1; s < parts; s++) expect(meanX[s]!).toBeGreaterThan(meanX[s - 1]!);
    }
  });

  it('keeps every vertex two slabs share where it was, and stays within the error', async () => {
    const mesh = await ellipsoid(24, 10, 10, 0.5);
    const r = await simplifyInParts(mesh, null, 0.1, 2, simplifyPart);
    expect(r.errorMm).toBeLessThanOrEqual(0.1);
    expect(r.seamVertices).toBeGreaterThan(0);
    const slab = assignSlabs(mesh, 2);
    const sides = new Map<number, number>();
    mesh.indices.forEach((v, i) => sides.set(v, (sides.get(v) ?? 0) | (1 << slab[(i / 3) | 0]!)));
    const seam = [...sides].filter(([, bits]) => bits === 3).map(([v]) => v);
    expect(seam.length).toBe(r.seamVertices);
    const kept = new Set(r.indices);
    for (const v of seam) expect(kept.has(v)).toBe(true);
    expect(r.indices.length).toBeLessThan(mesh.indices.length / 4);
  });

  it('cuts an extracted surface between its layers, locking exactly the vertices both sides use', async () => {
    // Longest along z, the axis the extraction's layers stack on.
    const mesh = await ellipsoid(10, 10, 24, 0.5);
    const tcount = mesh.indices.length / 3;
    const seen: { indices: Uint32Array; lock: Uint8Array }[] = [];
    const r = await simplifyInParts(
      mesh,
      null,
      0.1,
      2,
      async (task) => {
        seen.push({ indices: task.indices.slice(), lock: task.lock.slice() });
        return simplifyPart(task);
      },
      mesh.layers,
    );
    expect(seen.length).toBe(2);
    const [low, high] = seen as [{ indices: Uint32Array; lock: Uint8Array }, { indices: Uint32Array }];
    expect(Math.abs(low.indices.length / 3 / tcount - 0.5)).toBeLessThan(0.03);
    expect(low.indices.length + high.indices.length).toBe(mesh.indices.length);
    const inLow = new Set(low.indices);
    const shared = [...new Set(high.indices)].filter((v) => inLow.has(v)).sort((a, b) => a - b);
    const locked = [...low.lock.keys()].filter((v) => low.lock[v] === 1);
    expect(locked).toEqual(shared);
    expect(r.seamVertices).toBe(shared.length);
    const kept = new Set(r.indices);
    for (const v of shared) expect(kept.has(v)).toBe(true);
    expect(r.errorMm).toBeLessThanOrEqual(0.1);
    expect(edgeReport(r.indices, mesh.positions.length / 3)).toMatchObject(closed);
  });

  it('gives a closed, edge-manifold surface through the mesh workers, as good as one piece', async () => {
    pool = await createSlabPool(2);
    const mesh = await ellipsoid(24, 10, 10, 0.4);
    const one = await simplifyMesh({ positions: mesh.positions, indices: mesh.indices.slice() }, 0.1, {
      parts: 1,
    });
    const slabs = await simplifyMesh({ positions: mesh.positions, indices: mesh.indices.slice() }, 0.1, {
      parts: 2,
      partsFromTriangles: 0,
      runPart: (task) => pool!.run(task) as Promise<SimplifyPartResult>,
    });
    expect(slabs.parts).toBe(2);
    expect(slabs.seamVertices).toBeGreaterThan(0);
    expect(slabs.errorMm).toBeLessThanOrEqual(0.1);
    expect(edgeReport(slabs.indices, slabs.positions.length / 3)).toMatchObject(closed);
    // The locked seam keeps its fan of triangles: that is all the slabs cost (on a skull, 1,680 seam
    // vertices among 117,000 triangles).
    const extra = (slabs.indices.length - one.indices.length) / 3;
    expect(extra).toBeLessThanOrEqual(2 * slabs.seamVertices);
    expect(signedVolume(slabs) / signedVolume(mesh)).toBeGreaterThan(0.985);
  });

  it('simplifies again with the input vertices around a defect locked when a part comes back broken', async () => {
    const mesh = await ellipsoid(12, 8, 8, 0.5);
    let calls = 0;
    const lockedSeen: number[] = [];
    const s = await simplifyMesh(mesh, 0.1, {
      parts: 2,
      partsFromTriangles: 0,
      runPart: async (task) => {
        const call = ++calls;
        lockedSeen.push(task.lock.reduce((a, b) => a + b, 0));
        const r = await simplifyPart(task);
        if (call > 1) return r;
        // The first round's first slab has a triangle turned inside out: no pinch to pull apart.
        const indices = r.indices.slice();
        [indices[4], indices[5]] = [indices[5]!, indices[4]!];
        return { ...r, indices };
      },
    });
    expect(s.rounds).toBe(2);
    expect(s.unsimplified).toBe(false);
    // Round two locks the hole's corners and their neighbourhood on top of the seam.
    expect(lockedSeen[2]!).toBeGreaterThan(lockedSeen[0]!);
    expect(s.lockedVertices).toBeGreaterThan(0);
    expect(edgeReport(s.indices, s.positions.length / 3)).toMatchObject(closed);
  });

  it('simplifies a small mesh in one piece', async () => {
    const mesh = await ellipsoid(8, 5, 5, 0.5);
    const s = await simplifyMesh(mesh, 0.1);
    expect(s.parts).toBe(1);
    expect(s.seamVertices).toBe(0);
  });
});
