import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import draco3d from 'draco3d';
import type { BufferGeometry, Mesh as ThreeMesh } from 'three';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { extractIsoSurface, type Mesh } from './iso-surface.js';
import { meshBounds } from './mesh-checks.js';
import { signedVolume } from './mesh-checks.test-support.js';
import { writeMesh } from './mesh-writers.js';
import { isoSurfaceToFile } from './iso-surface-file.test-support.js';

let dir: string;
let mesh: Mesh;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-writers-'));
  // A ball of radius 12 mm around (100, -50, 700): patient-like coordinates, not near the origin.
  const n = 32;
  const data = new Float32Array(n * n * n);
  for (let k = 0; k < n; k++)
    for (let j = 0; j < n; j++)
      for (let i = 0; i < n; i++) data[i + j * n + k * n * n] = 12 - Math.hypot(i - 16, j - 16, k - 16);
  mesh = await extractIsoSurface(
    {
      data,
      dims: [n, n, n],
      spacing: [1, 1, 1],
      origin: [84, -66, 684],
      rowDir: [1, 0, 0],
      colDir: [0, 1, 0],
      sliceDir: [0, 0, 1],
    },
    0,
    { workers: 0 },
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const arrayBuffer = (b: Buffer): ArrayBuffer =>
  b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

function expectSameBounds(positions: ArrayLike<number>): void {
  const got = meshBounds(Float32Array.from(positions));
  const want = meshBounds(mesh.positions);
  for (let k = 0; k < 3; k++) {
    expect(got.min[k]).toBeCloseTo(want.min[k]!, 2);
    expect(got.max[k]).toBeCloseTo(want.max[k]!, 2);
  }
}

function outwardShare(geo: BufferGeometry): number {
  // Share of STL face normals pointing away from the ball's centre.
  const pos = geo.getAttribute('position');
  const nor = geo.getAttribute('normal');
  let out = 0;
  for (let i = 0; i < pos.count; i += 3) {
    const d = [pos.getX(i) - 100, pos.getY(i) + 50, pos.getZ(i) - 700];
    if (d[0]! * nor.getX(i) + d[1]! * nor.getY(i) + d[2]! * nor.getZ(i) > 0) out++;
  }
  return out / (pos.count / 3);
}

describe('writeMesh', () => {
  it('writes binary STL that three reads back with the same triangles and outward normals', async () => {
    const path = join(dir, 'm.stl');
    const w = await writeMesh(mesh, path, '.stl');
    const bytes = await readFile(path);
    expect(w.bytes).toBe(84 + 50 * (mesh.indices.length / 3));
    expect(bytes.length).toBe(w.bytes);
    const geo = new STLLoader().parse(arrayBuffer(bytes));
    expect(geo.getAttribute('position').count).toBe(mesh.indices.length);
    expectSameBounds(geo.getAttribute('position').array);
    expect(outwardShare(geo)).toBe(1);
  });

  it('writes binary little-endian PLY that three reads back with the same vertices and faces', async () => {
    const path = join(dir, 'm.ply');
    await writeMesh(mesh, path, '.ply');
    const bytes = await readFile(path);
    expect(bytes.subarray(0, 40).toString('ascii')).toContain('format binary_little_endian 1.0');
    const geo = new PLYLoader().parse(arrayBuffer(bytes));
    expect(geo.getAttribute('position').count).toBe(mesh.positions.length / 3);
    expect(geo.getIndex()?.count).toBe(mesh.indices.length);
    expect(Array.from(geo.getIndex()?.array ?? []).slice(0, 30)).toEqual(
      Array.from(mesh.indices.slice(0, 30)),
    );
    expectSameBounds(geo.getAttribute('position').array);
    expect(geo.getAttribute('normal').count).toBe(mesh.positions.length / 3);
  });

  it('writes OBJ that three reads back with the same triangles', async () => {
    const path = join(dir, 'm.obj');
    await writeMesh(mesh, path, '.obj');
    const text = await readFile(path, 'utf8');
    const group = new OBJLoader().parse(text);
    const geo = (group.children[0] as ThreeMesh).geometry;
    expect(geo.getAttribute('position').count).toBe(mesh.indices.length);
    expectSameBounds(geo.getAttribute('position').array);
    expect(text.match(/^v /gm)?.length).toBe(mesh.positions.length / 3);
  });

  it('writes Draco that Google’s decoder reads back with the same faces, points and shape', async () => {
    const path = join(dir, 'm.drc');
    const w = await writeMesh(mesh, path, '.drc');
    expect(w.bytes).toBeLessThan((mesh.indices.length / 3) * 50);
    const bytes = await readFile(path);
    const dm = await draco3d.createDecoderModule({});
    const decoder = new dm.Decoder();
    const buf = new dm.DecoderBuffer();
    buf.Init(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), bytes.byteLength);
    expect(decoder.GetEncodedGeometryType(buf)).toBe(dm.TRIANGULAR_MESH);
    const out = new dm.Mesh();
    const status = decoder.DecodeBufferToMesh(buf, out);
    expect(status.ok()).toBe(true);
    expect(out.num_faces()).toBe(mesh.indices.length / 3);
    expect(out.num_points()).toBe(mesh.positions.length / 3);
    const attr = decoder.GetAttribute(out, decoder.GetAttributeId(out, dm.POSITION));
    const values = new dm.DracoFloat32Array();
    decoder.GetAttributeFloatForAllPoints(out, attr, values);
    const positions = new Float32Array(values.size());
    for (let i = 0; i < positions.length; i++) positions[i] = values.GetValue(i);
    expectSameBounds(positions);
    const faces = new Uint32Array(out.num_faces() * 3);
    const ia = new dm.DracoInt32Array();
    for (let f = 0; f < out.num_faces(); f++) {
      decoder.GetFaceFromMesh(out, f, ia);
      for (let k = 0; k < 3; k++) faces[f * 3 + k] = ia.GetValue(k);
    }
    // Winding survives the round trip: the decoded ball still encloses its volume with outward faces.
    expect(signedVolume({ positions, indices: faces }) / signedVolume(mesh)).toBeCloseTo(1, 3);
    for (const o of [ia, values, out, buf, decoder]) dm.destroy(o);
  });

  it('isoSurfaceToFile writes the raw surface of a volume, simplified when asked', async () => {
    const n = 24;
    const data = new Int16Array(n * n * n);
    for (let k = 0; k < n; k++)
      for (let j = 0; j < n; j++)
        for (let i = 0; i < n; i++)
          data[i + j * n + k * n * n] = Math.round(1000 - 100 * Math.hypot(i - 12, j - 12, k - 12));
    const vol = {
      data,
      dims: [n, n, n] as [number, number, number],
      spacing: [1, 1, 1] as [number, number, number],
      origin: [0, 0, 0] as [number, number, number],
      rowDir: [1, 0, 0] as [number, number, number],
      colDir: [0, 1, 0] as [number, number, number],
      sliceDir: [0, 0, 1] as [number, number, number],
    };
    const full = await isoSurfaceToFile(vol, 0.5, join(dir, 'iso.stl'), { workers: 0 });
    expect(full.triangles).toBeGreaterThan(1000);
    expect((await readFile(join(dir, 'iso.stl'))).length).toBe(84 + 50 * full.triangles);
    const small = await isoSurfaceToFile(vol, 0.5, join(dir, 'iso.ply'), {
      workers: 0,
      decimateMaxError: 0.2,
    });
    expect(small.triangles).toBeLessThan(full.triangles);
    await expect(isoSurfaceToFile(vol, 0.5, join(dir, 'iso.fbx'))).rejects.toMatchObject({
      code: 'bad-request',
    });
  });
});
