// Every vertex a mesh file holds is a corner of one of its triangles. The real head CT's skull had
// 17 of 67,954 vertices no face used in its PLY and OBJ (a review): simplifying and repairing left
// them behind, and its STL, which holds only triangles, could not show them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import yazl from 'yazl';
import type { ProcessorResult } from '../processor.js';
import { createSegmentationProcessor } from './index.js';
import { madeMeshes } from './made-meshes.test-support.js';
import { readStl } from './stl.test-support.js';

/** A real human head CT in Hounsfield units, with the upper teeth in its lowest ~10 mm (MANIFEST.md). */
const SERIES = resolve('../shared/fixtures/dicom/ct-human-cranium-teeth');
const FORMATS = ['.stl', '.ply', '.obj'] as const;

let dir: string;
let result: ProcessorResult;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-compact-'));
  const files = (await readdir(SERIES)).sort().map((f) => join(SERIES, f));
  const zipPath = join(dir, 'cranium.zip');
  const zip = new yazl.ZipFile();
  for (const f of files) zip.addFile(f, f.slice(SERIES.length + 1));
  zip.end();
  const out = createWriteStream(zipPath);
  zip.outputStream.pipe(out);
  await once(out, 'close');
  result = await createSegmentationProcessor({ workers: 2 }).process(
    {
      jobId: 'compact',
      inputs: [{ name: 'cbct', extension: '.zip', path: zipPath }],
      meshes: FORMATS.map((extension) => ({ extension, structures: ['skull'] })),
      options: {},
      workDir: join(dir, 'job'),
    },
    () => {},
    new AbortController().signal,
  );
}, 180_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A binary little-endian PLY as the engine writes it: positions and normals, then triangles. */
async function readPly(path: string): Promise<{ positions: Float32Array; indices: Uint32Array }> {
  const b = await readFile(path);
  const end = b.indexOf('end_header\n') + 'end_header\n'.length;
  const head = b.subarray(0, end).toString('ascii');
  const verts = Number(/element vertex (\d+)/.exec(head)![1]);
  const tris = Number(/element face (\d+)/.exec(head)![1]);
  const positions = new Float32Array(verts * 3);
  for (let v = 0; v < verts; v++)
    for (let c = 0; c < 3; c++) positions[v * 3 + c] = b.readFloatLE(end + v * 24 + c * 4);
  const indices = new Uint32Array(tris * 3);
  const faces = end + verts * 24;
  for (let t = 0; t < tris; t++)
    for (let c = 0; c < 3; c++) indices[t * 3 + c] = b.readInt32LE(faces + t * 13 + 1 + c * 4);
  return { positions, indices };
}

/** An OBJ's vertex count and its faces' vertex numbers (from 0). */
async function readObj(path: string): Promise<{ vertices: number; indices: number[] }> {
  let vertices = 0;
  const indices: number[] = [];
  for (const line of (await readFile(path, 'ascii')).split('\n'))
    if (line.startsWith('v ')) vertices++;
    else if (line.startsWith('f '))
      for (const corner of line.slice(2).split(' ')) indices.push(Number(corner.split('/')[0]) - 1);
  return { vertices, indices };
}

const unused = (vertices: number, indices: ArrayLike<number>): number => {
  const used = new Uint8Array(vertices);
  for (let i = 0; i < indices.length; i++) used[indices[i]!] = 1;
  return used.reduce((n, u) => n + (u ? 0 : 1), 0);
};

describe('mesh files hold only the vertices their triangles use', () => {
  it("writes the real head CT's skull as PLY and OBJ with every vertex a corner, the same surface as its STL", async () => {
    const [stl, ply, obj] = madeMeshes(result).map((m) => m.path) as [string, string, string];
    const fromPly = await readPly(ply);
    const fromObj = await readObj(obj);
    const fromStl = await readStl(stl);
    expect(fromPly.positions.length / 3).toBeGreaterThan(50_000);
    expect(unused(fromPly.positions.length / 3, fromPly.indices)).toBe(0);
    expect(unused(fromObj.vertices, fromObj.indices)).toBe(0);
    expect(fromObj.vertices).toBe(fromPly.positions.length / 3);
    // Nothing used was dropped: the same triangles, corner for corner, as the STL's.
    expect(fromPly.indices.length).toBe(fromStl.indices.length);
    const corners = (m: { positions: Float32Array; indices: ArrayLike<number> }): string[] =>
      Array.from(
        m.indices,
        (v) => `${m.positions[v * 3]},${m.positions[v * 3 + 1]},${m.positions[v * 3 + 2]}`,
      );
    expect(corners(fromPly)).toEqual(corners(fromStl));
  });
});
