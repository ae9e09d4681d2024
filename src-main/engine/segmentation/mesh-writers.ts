import { open } from 'node:fs/promises';
import type { EncoderModule } from 'draco3d';
import { AppError } from '../../../src-shared/errors.js';
import { areaWeightedNormals } from '../../../src-shared/mesh-geometry.js';
import { PRIVATE_FILE_MODE } from '../../platform/private-files.js';
import type { Mesh } from './iso-surface.js';
import { meshBounds } from './mesh-checks.js';

import type { MeshFormat } from './mesh-formats.js';

export interface WrittenMesh {
  bytes: number;
  triangles: number;
}

/**
 * Writes a mesh as binary STL, binary little-endian PLY, OBJ or Draco, in chunks so that large meshes
 * do not need one huge buffer. A mesh of a patient's anatomy is private to the user (0600), also when
 * it replaces a file written before.
 */
export async function writeMesh(written: Mesh, path: string, format: MeshFormat): Promise<WrittenMesh> {
  const mesh = usedVerticesOnly(written);
  const chunks = format === '.drc' ? [await encodeDraco(mesh)] : encoders[format](mesh);
  const fh = await open(path, 'w', PRIVATE_FILE_MODE);
  let bytes = 0;
  try {
    await fh.chmod(PRIVATE_FILE_MODE);
    for (const chunk of chunks) {
      await fh.write(chunk);
      bytes += chunk.length;
    }
  } finally {
    await fh.close();
  }
  return { bytes, triangles: mesh.indices.length / 3 };
}

const TRIS_PER_CHUNK = 1 << 16;

/**
 * The mesh without the vertices no triangle uses, the others in their order, indices renumbered (the
 * mesh itself when every vertex is used). Simplifying and repairing leave some behind: the real
 * head CT's skull had 17 of 67,954 in its PLY and OBJ (a review), points a reader shows or counts
 * that are no part of any surface; STL, which holds only triangles, could not show them.
 */
export function usedVerticesOnly(mesh: Mesh): Mesh {
  // Plain index loops: a mapping callback and a subarray per vertex took 30 ms on a skull's mesh.
  const { positions: from, indices: ix } = mesh;
  const count = from.length / 3;
  const renumbered = new Int32Array(count).fill(-1);
  for (let i = 0; i < ix.length; i++) renumbered[ix[i] as number] = 0;
  let kept = 0;
  for (let v = 0; v < count; v++) if (renumbered[v] === 0) renumbered[v] = kept++;
  if (kept === count) return mesh;
  const positions = new Float32Array(kept * 3);
  for (let v = 0; v < count; v++) {
    const r = (renumbered[v] as number) * 3;
    if (r < 0) continue;
    positions[r] = from[v * 3] as number;
    positions[r + 1] = from[v * 3 + 1] as number;
    positions[r + 2] = from[v * 3 + 2] as number;
  }
  const indices = new Uint32Array(ix.length);
  for (let i = 0; i < ix.length; i++) indices[i] = renumbered[ix[i] as number] as number;
  return { positions, indices };
}

const encoders: Record<Exclude<MeshFormat, '.drc'>, (m: Mesh) => Iterable<Buffer>> = {
  '.stl': stlChunks,
  '.ply': plyChunks,
  '.obj': objChunks,
};

/** Binary STL: an 80-byte header, the triangle count, then 50 bytes per triangle (unit face normal, three corners). */
function* stlChunks(mesh: Mesh): Generator<Buffer> {
  const p = mesh.positions;
  const ix = mesh.indices;
  const tris = ix.length / 3;
  const head = Buffer.alloc(84);
  head.write('binary STL written by scan2mesh; units mm; patient coordinates (DICOM LPS)', 'ascii');
  head.writeUInt32LE(tris, 80);
  yield head;
  for (let t0 = 0; t0 < tris; t0 += TRIS_PER_CHUNK) {
    const t1 = Math.min(tris, t0 + TRIS_PER_CHUNK);
    const buf = Buffer.alloc((t1 - t0) * 50);
    const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    for (let t = t0; t < t1; t++) {
      const o = (t - t0) * 50;
      const a = (ix[t * 3] as number) * 3;
      const b = (ix[t * 3 + 1] as number) * 3;
      const c = (ix[t * 3 + 2] as number) * 3;
      const ux = (p[b] as number) - (p[a] as number);
      const uy = (p[b + 1] as number) - (p[a + 1] as number);
      const uz = (p[b + 2] as number) - (p[a + 2] as number);
      const vx = (p[c] as number) - (p[a] as number);
      const vy = (p[c + 1] as number) - (p[a + 1] as number);
      const vz = (p[c + 2] as number) - (p[a + 2] as number);
      let nx = uy * vz - uz * vy;
      let ny = uz * vx - ux * vz;
      let nz = ux * vy - uy * vx;
      const len = Math.sqrt(nx * nx + ny * ny + nz * nz) || 1;
      nx /= len;
      ny /= len;
      nz /= len;
      dv.setFloat32(o, nx, true);
      dv.setFloat32(o + 4, ny, true);
      dv.setFloat32(o + 8, nz, true);
      for (let k = 0; k < 3; k++) {
        const v = (ix[t * 3 + k] as number) * 3;
        dv.setFloat32(o + 12 + k * 12, p[v] as number, true);
        dv.setFloat32(o + 16 + k * 12, p[v + 1] as number, true);
        dv.setFloat32(o + 20 + k * 12, p[v + 2] as number, true);
      }
    }
    yield buf;
  }
}

/** Area-weighted unit vertex normals, pointing out of the surface (the side the triangles face). */
function vertexNormals(mesh: Mesh): Float32Array {
  return areaWeightedNormals(mesh.positions, mesh.indices);
}

/** Binary little-endian PLY with float positions and normals and int32 triangle indices. */
function* plyChunks(mesh: Mesh): Generator<Buffer> {
  const p = mesh.positions;
  const ix = mesh.indices;
  const verts = p.length / 3;
  const tris = ix.length / 3;
  const normals = vertexNormals(mesh);
  yield Buffer.from(
    [
      'ply',
      'format binary_little_endian 1.0',
      'comment written by scan2mesh; units mm; patient coordinates (DICOM LPS)',
      `element vertex ${verts}`,
      'property float x',
      'property float y',
      'property float z',
      'property float nx',
      'property float ny',
      'property float nz',
      `element face ${tris}`,
      'property list uchar int vertex_indices',
      'end_header',
      '',
    ].join('\n'),
    'ascii',
  );
  const VPC = TRIS_PER_CHUNK;
  for (let v0 = 0; v0 < verts; v0 += VPC) {
    const v1 = Math.min(verts, v0 + VPC);
    const f = new Float32Array((v1 - v0) * 6);
    for (let v = v0; v < v1; v++) {
      const o = (v - v0) * 6;
      f[o] = p[v * 3] as number;
      f[o + 1] = p[v * 3 + 1] as number;
      f[o + 2] = p[v * 3 + 2] as number;
      f[o + 3] = normals[v * 3] as number;
      f[o + 4] = normals[v * 3 + 1] as number;
      f[o + 5] = normals[v * 3 + 2] as number;
    }
    yield littleEndian(Buffer.from(f.buffer, f.byteOffset, f.byteLength));
  }
  for (let t0 = 0; t0 < tris; t0 += TRIS_PER_CHUNK) {
    const t1 = Math.min(tris, t0 + TRIS_PER_CHUNK);
    const buf = Buffer.alloc((t1 - t0) * 13);
    for (let t = t0; t < t1; t++) {
      const o = (t - t0) * 13;
      buf[o] = 3;
      buf.writeInt32LE(ix[t * 3] as number, o + 1);
      buf.writeInt32LE(ix[t * 3 + 1] as number, o + 5);
      buf.writeInt32LE(ix[t * 3 + 2] as number, o + 9);
    }
    yield buf;
  }
}

/** Typed arrays use the machine's byte order; PLY here is little-endian whatever the machine. */
function littleEndian(buf: Buffer): Buffer {
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] === 1) return buf;
  return buf.swap32();
}

/** Wavefront OBJ: positions and normals, faces as v//vn (1-based). */
function* objChunks(mesh: Mesh): Generator<Buffer> {
  const p = mesh.positions;
  const ix = mesh.indices;
  const normals = vertexNormals(mesh);
  yield Buffer.from('# written by scan2mesh; units mm; patient coordinates (DICOM LPS)\n', 'ascii');
  const lines: string[] = [];
  const flush = (): Buffer => {
    const b = Buffer.from(lines.join(''), 'ascii');
    lines.length = 0;
    return b;
  };
  const verts = p.length / 3;
  for (let v = 0; v < verts; v++) {
    lines.push(`v ${num(p[v * 3])} ${num(p[v * 3 + 1])} ${num(p[v * 3 + 2])}\n`);
    if (lines.length >= TRIS_PER_CHUNK) yield flush();
  }
  for (let v = 0; v < verts; v++) {
    lines.push(`vn ${nrm(normals[v * 3])} ${nrm(normals[v * 3 + 1])} ${nrm(normals[v * 3 + 2])}\n`);
    if (lines.length >= TRIS_PER_CHUNK) yield flush();
  }
  for (let t = 0; t < ix.length; t += 3) {
    const a = (ix[t] as number) + 1;
    const b = (ix[t + 1] as number) + 1;
    const c = (ix[t + 2] as number) + 1;
    lines.push(`f ${a}//${a} ${b}//${b} ${c}//${c}\n`);
    if (lines.length >= TRIS_PER_CHUNK) yield flush();
  }
  if (lines.length > 0) yield flush();
}

// 0.1 µm is far below any scan's resolution; fewer digits keep the file small.
const num = (v: number | undefined): string => String(Math.round((v ?? 0) * 1e4) / 1e4);
const nrm = (v: number | undefined): string => String(Math.round((v ?? 0) * 1e4) / 1e4);

let encoderModule: Promise<EncoderModule> | undefined;

/**
 * Draco (Google's draco3d encoder), positions quantised to about 0.01 mm, edgebreaker connectivity:
 * what three's DRACOLoader reads. Normals are left out; a viewer derives them from the winding.
 */
async function encodeDraco(mesh: Mesh): Promise<Buffer> {
  // Loaded on the first Draco file only: the other formats need none of its 2 MB.
  encoderModule ??= import('draco3d').then(({ default: draco3d }) => draco3d.createEncoderModule({}));
  const m = await encoderModule;
  const tris = mesh.indices.length / 3;
  const verts = mesh.positions.length / 3;
  const b = meshBounds(mesh.positions);
  const extent = Math.max(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2], 1e-3);
  const bits = Math.min(20, Math.max(12, Math.ceil(Math.log2(extent / 0.01))));
  const encoder = new m.Encoder();
  const builder = new m.MeshBuilder();
  const dmesh = new m.Mesh();
  const out = new m.DracoInt8Array();
  try {
    builder.AddFacesToMesh(dmesh, tris, mesh.indices);
    builder.AddFloatAttributeToMesh(dmesh, m.POSITION, verts, 3, mesh.positions);
    encoder.SetAttributeQuantization(m.POSITION, bits);
    encoder.SetEncodingMethod(m.MESH_EDGEBREAKER_ENCODING);
    const len = encoder.EncodeMeshToDracoBuffer(dmesh, out);
    if (len <= 0) throw new AppError('internal', 'The Draco encoder could not encode the mesh.');
    const buf = Buffer.alloc(len);
    for (let i = 0; i < len; i++) buf[i] = out.GetValue(i) & 0xff;
    return buf;
  } finally {
    m.destroy(out);
    m.destroy(dmesh);
    m.destroy(builder);
    m.destroy(encoder);
  }
}
