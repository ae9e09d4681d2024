/** STL, binary or ASCII, read by three's STLLoader once the shared rule (stlKind) has said which. */
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { foreignContent, otherMeshFormat, stlKind } from '../../../src-shared/mesh-content.js';
import type { HeaderFacts } from '../mesh-format.js';
import { corrupt, trianglesOf } from './format-reader.js';
import type { MeshFormatReader } from './format-reader.js';

/** An ASCII STL facet ("facet normal", "outer loop", 3 "vertex" lines...) takes 130 to 300 bytes. */
const ASCII_STL_BYTES_PER_TRIANGLE = 180;
const fmt = (n: number): string => n.toLocaleString('en-US');

function inspect(name: string, head: Uint8Array, size: number): HeaderFacts {
  const stl = stlKind(head, size);
  if (stl.kind === 'binary') return { triangles: stl.triangles, exact: true };
  if (stl.kind === 'ascii')
    return { triangles: Math.ceil(size / ASCII_STL_BYTES_PER_TRIANGLE), exact: false };
  // Neither: name what it is when that is plain, before reading its first bytes as a triangle count.
  const other = foreignContent(head) ?? otherMeshFormat(head, size);
  if (other) throw corrupt(name, `it is ${other}, not an STL mesh`);
  if (stl.triangles === null)
    throw corrupt(name, `it has only ${size} bytes, too short for a binary STL, and is not an ASCII STL`);
  const need = 84 + 50 * stl.triangles;
  throw corrupt(
    name,
    need > size && need - size < 50 * stl.triangles
      ? `it is a binary STL whose header announces ${fmt(stl.triangles)} triangles (${fmt(need)} bytes) but the file has only ${fmt(size)} bytes, so it is truncated`
      : `it is neither a binary STL (its size, ${fmt(size)} bytes, does not fit the triangle count in its header) nor an ASCII STL (it does not start with "solid" and a facet)`,
  );
}

/** A binary STL's trailing padding is cut off, so that STLLoader's own size rule says binary too. */
function parse(buffer: ArrayBuffer): ReturnType<MeshFormatReader['parse']> {
  const head = new Uint8Array(buffer, 0, Math.min(buffer.byteLength, 84));
  const stl = stlKind(head, buffer.byteLength);
  const whole = stl.kind === 'binary' && stl.bytes < buffer.byteLength ? buffer.slice(0, stl.bytes) : buffer;
  return trianglesOf(new STLLoader().parse(whole));
}

export const stlReader: MeshFormatReader = { label: 'STL', inspect, parse };
