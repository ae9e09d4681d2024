import { describe, expect, it } from 'vitest';
import { fixtureMesh } from '../viewer/fixture-meshes.test-support';
import { chunkMesh } from '../viewer/mesh-chunks';
import { buildIndexedMesh } from '../viewer/weld';
import { cutMesh, cutMeshInSlices } from './plane-cut';

// The renderer has no Node types (see viewer/fixture-meshes.test-support.ts); the test takes spawnSync at run time.
interface SpawnResult {
  status: number | null;
  stdout: string;
  stderr: string;
}
type SpawnSync = (cmd: string, args: string[], opts: { encoding: 'utf8'; maxBuffer?: number }) => SpawnResult;
const { spawnSync } = (
  globalThis as unknown as { process: { getBuiltinModule(id: string): { spawnSync: SpawnSync } } }
).process.getBuiltinModule('node:child_process');

const SKULL_NAME = 'skull-invesalius-cranium-400k-binary.stl';
const SKULL = new URL(`../../../shared/fixtures/mesh/${SKULL_NAME}`, import.meta.url).pathname;

/** A binary STL as an unwelded mesh: three vertices per triangle, as written in the file. */
function readBinaryStl(name: string): { positions: Float32Array; index: Uint32Array } {
  const view = new DataView(fixtureMesh(name));
  const n = view.getUint32(80, true);
  const positions = new Float32Array(n * 9);
  for (let t = 0; t < n; t++) {
    for (let k = 0; k < 9; k++) positions[t * 9 + k] = view.getFloat32(84 + t * 50 + 12 + k * 4, true);
  }
  return { positions, index: Uint32Array.from({ length: n * 3 }, (_, i) => i) };
}

const totalLength = (seg: Float32Array): number => {
  let sum = 0;
  for (let s = 0; s < seg.length; s += 6) {
    sum += Math.hypot(seg[s + 3]! - seg[s]!, seg[s + 4]! - seg[s + 1]!, seg[s + 5]! - seg[s + 2]!);
  }
  return sum;
};

// A unit cube from (0,0,0) to (1,1,1), 12 triangles on 8 shared vertices.
const cube = {
  positions: Float32Array.from([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]),
  index: Uint16Array.from([
    0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4,
    7,
  ]),
};

describe('cutMesh', () => {
  it('cuts a cube into its square outline at the plane', () => {
    const seg = cutMesh(cube, { point: [0, 0, 0.25], normal: [0, 0, 1] });
    expect(seg.length / 6).toBe(8); // two triangles per side face cross the plane
    for (let i = 2; i < seg.length; i += 3) expect(seg[i]).toBeCloseTo(0.25, 6);
    expect(totalLength(seg)).toBeCloseTo(4, 5);
    // An oblique plane through the centre: a hexagon of side sqrt(2)/2.
    const n = 1 / Math.sqrt(3);
    const hex = cutMesh(cube, { point: [0.5, 0.5, 0.5], normal: [n, n, n] });
    expect(totalLength(hex)).toBeCloseTo(6 * Math.SQRT1_2, 4);
  });

  it('finds nothing when the plane misses the mesh', () => {
    expect(cutMesh(cube, { point: [0, 0, 2], normal: [0, 0, 1] }).length).toBe(0);
    expect(cutMesh(cube, { point: [0, 0, -0.5], normal: [0, 0, 1] }).length).toBe(0);
  });

  it('reads chunked indices relative to each chunk', () => {
    // The same cube as two chunks: the second half's indices count from vertex 4 of a copied array.
    const positions = Float32Array.from([...cube.positions, ...cube.positions]);
    const index = Uint16Array.from([...cube.index.slice(0, 18), ...cube.index.slice(18)]);
    const chunked = cutMesh(
      {
        positions,
        index,
        chunks: [
          { start: 0, count: 18, firstVertex: 0 },
          { start: 18, count: 18, firstVertex: 8 },
        ],
      },
      { point: [0, 0, 0.5], normal: [0, 0, 1] },
    );
    expect(totalLength(chunked)).toBeCloseTo(4, 5);
  });

  it('cuts the viewer’s chunked skull in slices, skipping chunks the plane misses, to the same outline', async () => {
    const soup = readBinaryStl(SKULL_NAME);
    const chunked = chunkMesh(buildIndexedMesh(soup.positions.slice(), null));
    const plane = { point: [0, 0, 60], normal: [0, 0, 1] } as const;
    const whole = totalLength(cutMesh(soup, plane));
    expect(whole).toBeGreaterThan(100);
    expect(totalLength(await cutMeshInSlices(chunked, plane)) / whole).toBeCloseTo(1, 6);
    // A plane beside the mesh crosses no chunk's box.
    expect((await cutMeshInSlices(chunked, { point: [0, 0, 1e4], normal: [0, 0, 1] })).length).toBe(0);
  }, 60_000);

  const vtk = spawnSync('/usr/bin/python3', ['-c', 'import vtk'], { encoding: 'utf8' });
  it.skipIf(vtk.status !== 0)(
    `matches vtkCutter on the real 400k-triangle skull${vtk.status !== 0 ? ' (skipped: /usr/bin/python3 has no vtk; install python3-vtk9)' : ''}`,
    () => {
      const skull = readBinaryStl(SKULL_NAME);
      for (const [point, normal] of [
        [
          [0, 0, 60],
          [0, 0, 1],
        ],
        [
          [0, -120, 0],
          [0, 1, 0],
        ],
      ] as const) {
        const ours = totalLength(cutMesh(skull, { point, normal }));
        const r = spawnSync(
          '/usr/bin/python3',
          [
            '-c',
            `import sys, vtk
r = vtk.vtkSTLReader(); r.SetFileName(sys.argv[1]); r.Update()
p = vtk.vtkPlane(); p.SetOrigin(*map(float, sys.argv[2:5])); p.SetNormal(*map(float, sys.argv[5:8]))
c = vtk.vtkCutter(); c.SetCutFunction(p); c.SetInputConnection(r.GetOutputPort()); c.Update()
o = c.GetOutput(); total = 0.0
for i in range(o.GetNumberOfCells()):
    ids = o.GetCell(i).GetPointIds()
    for k in range(ids.GetNumberOfIds() - 1):
        a = o.GetPoint(ids.GetId(k)); b = o.GetPoint(ids.GetId(k + 1))
        total += sum((a[j] - b[j]) ** 2 for j in range(3)) ** 0.5
print(total)`,
            SKULL,
            ...point.map(String),
            ...normal.map(String),
          ],
          { encoding: 'utf8', maxBuffer: 1 << 26 },
        );
        expect(r.status, r.stderr).toBe(0);
        const reference = Number(r.stdout.trim().split('\n').pop());
        expect(reference).toBeGreaterThan(100);
        expect(Math.abs(ours - reference) / reference).toBeLessThan(1e-3);
      }
    },
    120_000,
  );
});
