/** STL, binary or ASCII, read by three's STLLoader. */
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import type { HeaderFacts } from '../mesh-format.js';
import { ascii, corrupt, isMostlyText, trianglesOf } from './format-reader.js';
import type { MeshFormatReader } from './format-reader.js';

/** An ASCII STL facet ("facet normal", "outer loop", 3 "vertex" lines...) takes 130 to 300 bytes. */
const ASCII_STL_BYTES_PER_TRIANGLE = 180;

function inspect(name: string, head: Uint8Array, size: number): HeaderFacts {
  if (size >= 84) {
    const n = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(80, true);
    // Same rule as STLLoader: the size matching the triangle count means binary, whatever the header says.
    if (84 + 50 * n === size) return { triangles: n, exact: true };
    const textual = isMostlyText(head) && /^\s*solid/.test(ascii(head, 0, 512));
    if (!textual) {
      const need = 84 + 50 * n;
      throw corrupt(
        name,
        need > size
          ? `it is a binary STL whose header announces ${n.toLocaleString('en-US')} triangles (${need.toLocaleString('en-US')} bytes) but the file has only ${size.toLocaleString('en-US')} bytes, so it is truncated`
          : `it is neither a binary STL (its size does not fit the triangle count in its header) nor an ASCII STL (it does not start with "solid")`,
      );
    }
  } else if (!/^\s*solid/.test(ascii(head))) {
    throw corrupt(name, `it has only ${size} bytes, too short for a binary STL, and is not an ASCII STL`);
  }
  return { triangles: Math.ceil(size / ASCII_STL_BYTES_PER_TRIANGLE), exact: false };
}

export const stlReader: MeshFormatReader = {
  label: 'STL',
  inspect,
  parse: (buffer) => trianglesOf(new STLLoader().parse(buffer)),
};
