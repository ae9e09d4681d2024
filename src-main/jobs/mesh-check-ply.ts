/**
 * The download check of a PLY: the shared header rules (src-shared/ply-header.ts), then the body
 * walked by the viewer's own walk (src-shared/ply-body.ts), read from the file a chunk at a time:
 * every element declared is there, vertices have coordinates anatomy can have, faces name vertices
 * the mesh has, and some triangle has area.
 */
import { plyBodyFault, readPlyHeader } from '../../src-shared/ply-header.js';
import type { PlyHeader } from '../../src-shared/ply-header.js';
import { PlyBody } from '../../src-shared/ply-body.js';
import type { PlySink } from '../../src-shared/ply-body.js';
import { MeshFault, SurfaceWitness, checkCoordinate, forEachChunk, scanText } from './mesh-scan.js';
import type { MeshFile, SurfaceCount } from './mesh-scan.js';

/** Walks the body of the PLY `file` into `sink`; `finish` is the caller's (a stopped walk has none). */
async function walk(file: MeshFile, h: PlyHeader, size: number, body: PlyBody): Promise<void> {
  if (h.format === 'ascii') {
    await scanText(file, h.headerBytes, size, body.lines);
    return;
  }
  let carry = Buffer.alloc(0);
  let read = h.headerBytes;
  await forEachChunk(file, h.headerBytes, size, (chunk) => {
    read += chunk.length;
    const buf = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    const at = body.binary(new DataView(buf.buffer, buf.byteOffset, buf.byteLength), 0);
    carry = Buffer.from(buf.subarray(at));
    // An element longer than the rest of the file would be carried, and copied, to its end.
    if (body.wanted > carry.length + size - read) body.finish();
  });
}

/** Throws a MeshFault saying what is wrong with the PLY `file`; else what it counted. */
export async function checkPly(file: MeshFile, head: Buffer, size: number): Promise<SurfaceCount> {
  const h = readPlyHeader(head.toString('latin1'));
  if (typeof h === 'string') throw new MeshFault(h);
  const fault = plyBodyFault(h, size);
  if (fault) throw new MeshFault(fault);
  const vertexAt = h.elements.findIndex((el) => el.name === 'vertex');
  const faceAt = h.elements.findIndex((el) => el.name === 'face');
  const vertexFirst = vertexAt >= 0 && vertexAt < faceAt;
  const surface = new SurfaceWitness(vertexAt >= 0 ? h.elements[vertexAt]!.count : 0);
  const sink: PlySink = {
    vertex: (_i, x, y, z) => {
      checkCoordinate(x);
      checkCoordinate(y);
      checkCoordinate(z);
      surface.vertex(x, y, z);
    },
    // Faces before their vertices are judged on a second walk, once the vertices are known (a
    // witness too large to judge only counts them, and may hear them now). Every face is judged:
    // the viewer warns of each triangle without area, and so does the saved mesh's note.
    face: (corners) => {
      if (vertexFirst || !surface.open) surface.face(corners);
    },
  };
  const body = new PlyBody(h, sink);
  await walk(file, h, size, body);
  body.finish();
  if (!vertexFirst && surface.open) {
    const faces = new PlyBody(h, { vertex: () => {}, face: (corners) => surface.face(corners) });
    await walk(file, h, size, faces);
  }
  return surface.check();
}
