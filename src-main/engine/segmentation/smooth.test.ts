import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSlabPool, extractIsoSurfaceVoxels, type Mesh, type SlabPool } from './iso-surface.js';
import { signedVolume } from './mesh-checks.test-support.js';
import { taubinSmooth } from './smooth.js';

/** A voxelised ball of radius r (a staircase surface), in voxel coordinates around its centre. */
async function blockyBall(r: number): Promise<{ mesh: Mesh; n: number }> {
  const n = 2 * r + 6;
  const c = (n - 1) / 2;
  const data = new Int16Array(n * n * n);
  for (let k = 0; k < n; k++)
    for (let j = 0; j < n; j++)
      for (let i = 0; i < n; i++) data[i + j * n + k * n * n] = Math.hypot(i - c, j - c, k - c) <= r ? 1 : 0;
  // The mask-like volume puts every vertex at an edge midpoint: a staircase to smooth.
  const mesh = await extractIsoSurfaceVoxels({ data, dims: [n, n, n] }, 0.5, { workers: 0 });
  return { mesh, n };
}

/** Spread of the vertices' distances from the centre: 0 on a perfect sphere. */
function radialSpread(m: Mesh, c: number): number {
  const d: number[] = [];
  for (let v = 0; v < m.positions.length; v += 3)
    d.push(Math.hypot(m.positions[v]! - c, m.positions[v + 1]! - c, m.positions[v + 2]! - c));
  const mean = d.reduce((a, b) => a + b, 0) / d.length;
  return Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / d.length);
}

let pool: SlabPool;
beforeAll(async () => {
  pool = await createSlabPool(2);
});
afterAll(async () => {
  await pool.close();
});

describe('taubinSmooth', () => {
  it('takes the staircase off a voxel ball without shrinking it', async () => {
    const { mesh, n } = await blockyBall(12);
    const c = (n - 1) / 2;
    const before = { spread: radialSpread(mesh, c), volume: signedVolume(mesh) };
    await taubinSmooth(mesh.positions, mesh.indices, 5);
    expect(radialSpread(mesh, c)).toBeLessThan(before.spread * 0.75);
    expect(signedVolume(mesh) / before.volume).toBeGreaterThan(0.97);
  });

  it('gives the same positions in the mesh workers as in this thread, and clamps to the box', async () => {
    const { mesh, n } = await blockyBall(10);
    const here = mesh.positions.slice();
    const there = new Float32Array(new SharedArrayBuffer(mesh.positions.byteLength));
    there.set(mesh.positions);
    // A box that cuts into the ball, so that the clamp has something to do.
    const clamp = {
      min: [2, 2, 2] as [number, number, number],
      max: [n - 4, n - 4, n - 4] as [number, number, number],
    };
    await taubinSmooth(here, mesh.indices, 3, { clamp });
    await taubinSmooth(there, mesh.indices, 3, { clamp, run: (t) => pool.run(t), parts: 5 });
    expect(Array.from(there)).toEqual(Array.from(here));
    expect(Math.max(...here)).toBeLessThanOrEqual(n - 4);
    expect(Math.min(...here)).toBeGreaterThanOrEqual(2);
    expect(here.some((p) => p === n - 4)).toBe(true);
  });
});
