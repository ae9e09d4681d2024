import { describe, expect, it, afterAll } from 'vitest';
import type { Volume } from '../../scans/volume.js';
import { componentsAbove } from './components.js';
import { MC_TABLE } from './mc-table.generated.js';
import {
  createSlabPool,
  extractIsoSurface,
  extractIsoSurfaceVoxels,
  voxelToPatient,
  type SlabPool,
} from './iso-surface.js';
import { meshBounds } from './mesh-checks.js';
import { edgeReport, eulerCharacteristic, signedVolume } from './mesh-checks.test-support.js';

/** A volume sampled from f(x, y, z) at voxel centres given in mm (patient coordinates). */
function analyticVolume(
  dims: [number, number, number],
  f: (x: number, y: number, z: number) => number,
  geo: Partial<Pick<Volume, 'spacing' | 'origin' | 'rowDir' | 'colDir' | 'sliceDir'>> = {},
  type: 'int16' | 'float32' = 'float32',
): Volume {
  const [nx, ny, nz] = dims;
  const v: Volume = {
    data: type === 'int16' ? new Int16Array(nx * ny * nz) : new Float32Array(nx * ny * nz),
    dims,
    spacing: geo.spacing ?? [1, 1, 1],
    origin: geo.origin ?? [0, 0, 0],
    rowDir: geo.rowDir ?? [1, 0, 0],
    colDir: geo.colDir ?? [0, 1, 0],
    sliceDir: geo.sliceDir ?? [0, 0, 1],
  };
  const { spacing: s, origin: o, rowDir: r, colDir: c, sliceDir: d } = v;
  for (let k = 0; k < nz; k++)
    for (let j = 0; j < ny; j++)
      for (let i = 0; i < nx; i++) {
        const x = o[0] + i * s[0] * r[0] + j * s[1] * c[0] + k * s[2] * d[0];
        const y = o[1] + i * s[0] * r[1] + j * s[1] * c[1] + k * s[2] * d[1];
        const z = o[2] + i * s[0] * r[2] + j * s[1] * c[2] + k * s[2] * d[2];
        const val = f(x, y, z);
        v.data[i + j * nx + k * nx * ny] = type === 'int16' ? Math.round(val) : val;
      }
  return v;
}

const sphere =
  (cx: number, cy: number, cz: number, r: number) =>
  (x: number, y: number, z: number): number =>
    // Grey value falls linearly with distance: 1000 at the centre, 0 at radius r, like a blurred ball.
    1000 * (1 - Math.hypot(x - cx, y - cy, z - cz) / r);

let pool: SlabPool | undefined;
afterAll(async () => {
  await pool?.close();
});

describe('marching-cubes table', () => {
  it('has triangles exactly for the cases that are neither empty nor full', () => {
    for (let c = 0; c < 256; c++) {
      const n = (MC_TABLE.triStart[c + 1] as number) - (MC_TABLE.triStart[c] as number);
      expect(n === 0).toBe(c === 0 || c === 255);
    }
  });
});

describe('extractIsoSurface', () => {
  it('gives a closed, outward-facing sphere of the right volume and place', async () => {
    const r = 20;
    const vol = analyticVolume([48, 48, 48], sphere(24, 24, 24, r));
    const mesh = await extractIsoSurface(vol, 0, { workers: 0 });
    const rep = edgeReport(mesh.indices, mesh.positions.length / 3);
    expect(rep).toMatchObject({ boundaryEdges: 0, nonManifoldEdges: 0, inconsistentEdges: 0 });
    expect(eulerCharacteristic(mesh)).toBe(2);
    const vTrue = (4 / 3) * Math.PI * r ** 3;
    expect(signedVolume(mesh) / vTrue).toBeGreaterThan(0.99);
    expect(signedVolume(mesh) / vTrue).toBeLessThan(1.005);
    const b = meshBounds(mesh.positions);
    for (let k = 0; k < 3; k++) {
      expect(b.min[k]).toBeCloseTo(24 - r, 0);
      expect(b.max[k]).toBeCloseTo(24 + r, 0);
    }
  });

  it('places vertices in patient coordinates for oblique, anisotropic, left-handed geometry', async () => {
    // Columns along -y, rows along +x, slices stacked downwards: a left-handed index frame.
    const geo = {
      spacing: [0.5, 0.8, 1.2] as [number, number, number],
      origin: [-10, 30, 100] as [number, number, number],
      rowDir: [0, -1, 0] as [number, number, number],
      colDir: [1, 0, 0] as [number, number, number],
      sliceDir: [0, 0, -1] as [number, number, number],
    };
    const c: [number, number, number] = [-10 + 0.8 * 20, 30 - 0.5 * 30, 100 - 1.2 * 16];
    const r = 9;
    const vol = analyticVolume([60, 40, 32], sphere(c[0], c[1], c[2], r), geo);
    const mesh = await extractIsoSurface(vol, 0, { workers: 0 });
    const b = meshBounds(mesh.positions);
    for (let k = 0; k < 3; k++) {
      expect(b.min[k]).toBeCloseTo(c[k]! - r, 0);
      expect(b.max[k]).toBeCloseTo(c[k]! + r, 0);
    }
    expect(signedVolume(mesh) / ((4 / 3) * Math.PI * r ** 3)).toBeGreaterThan(0.97);
  });

  it('finds a torus (genus one) and two separate balls as separate closed components', async () => {
    const torus = (x: number, y: number, z: number): number => {
      const q = Math.hypot(x - 30, y - 30) - 16;
      return 1000 * (1 - Math.hypot(q, z - 20) / 6);
    };
    const mesh = await extractIsoSurface(analyticVolume([60, 60, 40], torus), 0, { workers: 0 });
    expect(edgeReport(mesh.indices, mesh.positions.length / 3).boundaryEdges).toBe(0);
    expect(eulerCharacteristic(mesh)).toBe(0);
    const ring = 2 * Math.PI ** 2 * 16 * 6 ** 2;
    expect(signedVolume(mesh) / ring).toBeCloseTo(1, 1);

    const two = (x: number, y: number, z: number): number =>
      Math.max(sphere(10, 10, 10, 6)(x, y, z), sphere(30, 10, 10, 6)(x, y, z));
    const balls = await extractIsoSurface(analyticVolume([40, 20, 20], two), 0, { workers: 0 });
    expect(eulerCharacteristic(balls)).toBe(4);
  });

  it('closes a region cut by the volume border, with the cap inside the physical extent', async () => {
    // A ball centred on the first slice: half of it is outside the scan.
    const vol = analyticVolume([30, 30, 20], sphere(15, 15, 0, 10), {}, 'int16');
    const closed = await extractIsoSurface(vol, 0.5, { workers: 0 });
    expect(edgeReport(closed.indices, closed.positions.length / 3)).toMatchObject({
      boundaryEdges: 0,
      nonManifoldEdges: 0,
      inconsistentEdges: 0,
    });
    expect(meshBounds(closed.positions).min[2]).toBeGreaterThanOrEqual(-0.5);
    const half = (2 / 3) * Math.PI * 10 ** 3;
    expect(signedVolume(closed) / half).toBeGreaterThan(0.95);
    const open = await extractIsoSurface(vol, 0.5, { workers: 0, closeBorders: false });
    expect(edgeReport(open.indices, open.positions.length / 3).boundaryEdges).toBeGreaterThan(0);
  });

  it('stays closed and edge-manifold on random noise (rows spanning three words), both polarities, on a mask', async () => {
    let seed = 12345;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) * 2 - 1;
    const vol = analyticVolume([67, 17, 13], () => rnd() * 100, {}, 'int16');
    for (const polarity of ['above', 'below'] as const) {
      const mesh = await extractIsoSurface(vol, 0.5, { workers: 0, polarity });
      expect(mesh.indices.length).toBeGreaterThan(1000);
      expect(edgeReport(mesh.indices, mesh.positions.length / 3)).toMatchObject({
        boundaryEdges: 0,
        nonManifoldEdges: 0,
        inconsistentEdges: 0,
      });
      expect(signedVolume(mesh)).toBeGreaterThan(0);
    }
    const mask = new Uint8Array(vol.data.length).map(() => (rnd() > 0.3 ? 1 : 0));
    const masked = await extractIsoSurface(vol, 0.5, { workers: 0, mask });
    expect(edgeReport(masked.indices, masked.positions.length / 3)).toMatchObject({
      boundaryEdges: 0,
      nonManifoldEdges: 0,
    });
  });

  it('gives the same mesh from worker slabs as from one pass in this thread', async () => {
    pool = await createSlabPool(2);
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) * 2 - 1;
    const vol = analyticVolume(
      [40, 36, 50],
      (x, y, z) => sphere(20, 18, 25, 17)(x, y, z) + rnd() * 150,
      {},
      'int16',
    );
    for (const closeBorders of [true, false]) {
      const one = await extractIsoSurfaceVoxels(vol, 0.5, { workers: 0, closeBorders });
      const many = await extractIsoSurfaceVoxels(vol, 0.5, { pool, closeBorders });
      // Vertices are numbered by grid edge, so the slabs give exactly the same arrays.
      expect(Array.from(many.indices)).toEqual(Array.from(one.indices));
      expect(Array.from(many.positions)).toEqual(Array.from(one.positions));
      const rep = edgeReport(many.indices, many.positions.length / 3);
      expect(rep.nonManifoldEdges).toBe(0);
      if (closeBorders) expect(rep).toMatchObject({ boundaryEdges: 0, inconsistentEdges: 0 });
      else expect(rep.boundaryEdges).toBeGreaterThan(0);
    }
  });

  it('reads what is inside from runs exactly as from the mask they stand for, with columns across word edges', async () => {
    pool ??= await createSlabPool(2);
    let seed = 99;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) * 2 - 1;
    // 70 columns: runs that start, end and cross at the 32-column word edges of the packed rows.
    const dims: [number, number, number] = [70, 21, 17];
    const vol = analyticVolume(dims, (x, y, z) => sphere(35, 10, 8, 9)(x, y, z) + rnd() * 400, {}, 'int16');
    const mask = new Uint8Array(new SharedArrayBuffer(vol.data.length));
    const { runs } = componentsAbove(vol.data, 0.5, dims, () => new Uint8Array(100_000).fill(1), mask);
    for (const opts of [{ workers: 0 }, { pool }]) {
      const fromMask = await extractIsoSurfaceVoxels(vol, 0.5, { ...opts, mask });
      const fromRuns = await extractIsoSurfaceVoxels(vol, 0.5, { ...opts, runs });
      expect(fromMask.indices.length).toBeGreaterThan(1000);
      expect(Array.from(fromRuns.indices)).toEqual(Array.from(fromMask.indices));
      expect(Array.from(fromRuns.positions)).toEqual(Array.from(fromMask.positions));
    }
  });

  it('stops when the signal aborts', async () => {
    const vol = analyticVolume([40, 40, 40], sphere(20, 20, 20, 15));
    const ac = new AbortController();
    ac.abort();
    await expect(extractIsoSurface(vol, 0, { pool, signal: ac.signal })).rejects.toMatchObject({
      code: 'canceled',
    });
  });
});

describe('a surface larger than memory carries', () => {
  it('is refused in words before its arrays are made, in this thread and on workers', async () => {
    // A one-voxel lattice (a review's crafted bone): every other voxel inside, the most surface a
    // volume can have. 21 million such triangles peaked at 4.9 GB.
    const lattice = analyticVolume([16, 16, 16], (x, y, z) => ((x + y + z) % 2 === 0 ? 1000 : 0));
    for (const workers of [0, 2])
      await expect(extractIsoSurfaceVoxels(lattice, 500, { workers, maxTriangles: 1000 })).rejects.toThrow(
        /^The surface would have [\d.]+ million triangles, more than this computer's memory can smooth and simplify/,
      );
    const made = await extractIsoSurfaceVoxels(lattice, 500, { workers: 0, maxTriangles: 1e6 });
    expect(made.indices.length / 3).toBeGreaterThan(1000);
  });
});

describe('voxelToPatient', () => {
  it('refuses a geometry whose slices step within the image plane: every triangle would be flat', () => {
    const mesh = {
      positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 1]),
      indices: new Uint32Array([0, 1, 2]),
    };
    const geometry = {
      spacing: [0.5, 0.5, 1] as [number, number, number],
      origin: [0, 0, 0] as [number, number, number],
      rowDir: [1, 0, 0] as [number, number, number],
      colDir: [0, 1, 0] as [number, number, number],
    };
    expect(() => voxelToPatient(mesh, { ...geometry, sliceDir: [1, 0, 0] })).toThrow(/do not span a volume/);
    voxelToPatient(mesh, { ...geometry, sliceDir: [0, 0, 1] });
    expect([...mesh.positions]).toEqual([0, 0, 0, 0.5, 0, 0, 0, 0.5, 1]);
  });
});
