/** Wavefront OBJ: vertices and faces, read by obj-body.ts. */
import { foreignContent, otherMeshFormat } from '../../../src-shared/mesh-content.js';
import { objHeadFault } from '../../../src-shared/obj-text.js';
import { ascii, corrupt } from './format-reader.js';
import type { MeshFormatReader } from './format-reader.js';
import { readObjBody } from './obj-body.js';

/**
 * An OBJ triangle is an "f a b c" line plus about half a "v x y z" line: 30 to 60 bytes. Only a
 * first guess, before the file is read: the body's first pass counts the corners of every face.
 */
const OBJ_BYTES_PER_TRIANGLE = 30;

export const objReader: MeshFormatReader = {
  label: 'OBJ',
  inspect: (name, head, size) => {
    // Plain text with no header: what it plainly is instead (a server's error page) is named.
    const other = foreignContent(head) ?? otherMeshFormat(head, size);
    if (other) throw corrupt(name, `it is ${other}, not an OBJ mesh`);
    // Binary data (a file of zeros) is refused by its first bytes, whatever its size.
    const binary = objHeadFault(ascii(head));
    if (binary) throw corrupt(name, binary);
    return { triangles: Math.ceil(size / OBJ_BYTES_PER_TRIANGLE), exact: false };
  },
  parse: (buffer, opts) => readObjBody(buffer, opts),
};
