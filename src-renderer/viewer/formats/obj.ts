/** Wavefront OBJ: vertices and faces, read by obj-body.ts. */
import { objContentFault } from '../../../src-shared/obj-text.js';
import { corrupt } from './format-reader.js';
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
    // Plain text with no header: what it plainly is instead (a server's error page) is named, and
    // binary data (a file of zeros) is refused by its first bytes, whatever its size.
    const fault = objContentFault(head, size);
    if (fault) throw corrupt(name, fault);
    return { triangles: Math.ceil(size / OBJ_BYTES_PER_TRIANGLE), exact: false };
  },
  parse: (buffer, opts) => readObjBody(buffer, opts),
};
