/**
 * A downloaded Draco file decoded by Google's decoder (the draco3d package the app already ships
 * for writing Draco): a header says nothing of whether the rest is whole, and a file cut short
 * or a header with nothing after it still starts with "DRACO". Decoding takes about a tenth of a
 * second per million triangles, once per download; the module is loaded on first use and kept.
 */
import { readFile } from 'node:fs/promises';
import type { DecoderModule } from 'draco3d';
import { MeshFault, SurfaceWitness, checkCoordinate } from './mesh-scan.js';
import type { SurfaceCount } from './mesh-scan.js';

let decoderModule: Promise<DecoderModule> | null = null;

/** `bytes`: the file's, when they were read already. */
export async function checkDraco(path: string, bytes?: Buffer): Promise<SurfaceCount> {
  decoderModule ??= import('draco3d').then(({ default: draco3d }) => draco3d.createDecoderModule({}));
  const dm = await decoderModule;
  bytes ??= await readFile(path);
  const decoder = new dm.Decoder();
  const buffer = new dm.DecoderBuffer();
  const mesh = new dm.Mesh();
  const values = new dm.DracoFloat32Array();
  try {
    buffer.Init(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), bytes.byteLength);
    if (decoder.GetEncodedGeometryType(buffer) !== dm.TRIANGULAR_MESH)
      throw new MeshFault('it is not a Draco triangle mesh');
    const status = decoder.DecodeBufferToMesh(buffer, mesh);
    if (!status.ok())
      throw new MeshFault(`Draco's decoder cannot read it (${status.error_msg()}): it is cut off or damaged`);
    if (mesh.num_faces() === 0) throw new MeshFault('it holds no triangles: the mesh is empty');
    const id = decoder.GetAttributeId(mesh, dm.POSITION);
    if (id < 0) throw new MeshFault('it has no vertex positions');
    decoder.GetAttributeFloatForAllPoints(mesh, decoder.GetAttribute(mesh, id), values);
    const n = values.size();
    const surface = new SurfaceWitness(n / 3);
    for (let i = 0; i < n; i += 3) {
      for (let k = 0; k < 3; k++) checkCoordinate(values.GetValue(i + k));
      surface.vertex(values.GetValue(i), values.GetValue(i + 1), values.GetValue(i + 2));
    }
    // Every face is judged (the viewer warns of each without area): read at once, as three's
    // DRACOLoader does, not by a call per face into the decoder.
    const bytesOfFaces = mesh.num_faces() * 12;
    const ptr = dm._malloc(bytesOfFaces);
    try {
      if (!decoder.GetTrianglesUInt32Array(mesh, bytesOfFaces, ptr))
        throw new MeshFault("Draco's decoder cannot give its triangles: it is damaged");
      const index = new Uint32Array(dm.HEAPU32.buffer, ptr, mesh.num_faces() * 3);
      const corners = [0, 0, 0];
      for (let c = 0; c < index.length; c += 3) {
        [corners[0], corners[1], corners[2]] = [index[c]!, index[c + 1]!, index[c + 2]!];
        surface.face(corners);
      }
    } finally {
      dm._free(ptr);
    }
    return surface.check();
  } finally {
    for (const o of [values, mesh, buffer, decoder]) dm.destroy(o);
  }
}
