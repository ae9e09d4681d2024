/** Wavefront OBJ, read by three's OBJLoader. */
import type { Mesh, Object3D } from 'three';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { trianglesOf } from './format-reader.js';
import type { MeshFormatReader, ParsedTriangles } from './format-reader.js';

/** An OBJ triangle is an "f a b c" line plus about half a "v x y z" line: 30 to 60 bytes. */
const OBJ_BYTES_PER_TRIANGLE = 30;

/** Every triangle mesh of an OBJ (it may hold several objects and groups) as one soup. */
function soupOf(root: Object3D): ParsedTriangles {
  const parts: Float32Array[] = [];
  root.traverse((o) => {
    const mesh = o as Mesh;
    if (mesh.isMesh) {
      // OBJLoader yields non-indexed geometry; toNonIndexed keeps this true if that ever changes.
      const g = mesh.geometry.index ? mesh.geometry.toNonIndexed() : mesh.geometry;
      const p = trianglesOf(g).positions;
      if (p.length > 0) parts.push(p);
    }
  });
  if (parts.length === 1) return { positions: parts[0]!, index: null };
  const positions = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    positions.set(p, at);
    at += p.length;
  }
  return { positions, index: null };
}

export const objReader: MeshFormatReader = {
  label: 'OBJ',
  // Plain text with no header to check: only the size, for the budget.
  inspect: (_name, _head, size) => ({ triangles: Math.ceil(size / OBJ_BYTES_PER_TRIANGLE), exact: false }),
  parse: (buffer) => soupOf(new OBJLoader().parse(new TextDecoder().decode(buffer))),
};
