/** PLY, ASCII or binary: its header checked by the shared rules, its body read by ply-body.ts. */
import { AppError } from '../../../src-shared/errors.js';
import { plyContentFault } from '../../../src-shared/mesh-content.js';
import { plyBodyFault, plyMeshElements, readPlyHeader } from '../../../src-shared/ply-header.js';
import type { PlyHeader } from '../../../src-shared/ply-header.js';
import type { HeaderFacts } from '../mesh-format.js';
import { ascii, corrupt } from './format-reader.js';
import type { MeshFormatReader } from './format-reader.js';
import { readPlyBody } from './ply-body.js';

/** The header, checked against the file's size; a refusal in words otherwise. */
function header(name: string, head: Uint8Array, size: number): PlyHeader {
  const other = plyContentFault(head, size);
  if (other) throw corrupt(name, other);
  const h = readPlyHeader(ascii(head));
  if (typeof h === 'string') throw corrupt(name, h);
  const fault = plyBodyFault(h, size);
  if (fault) throw corrupt(name, fault);
  return h;
}

function inspect(name: string, head: Uint8Array, size: number): HeaderFacts {
  const h = header(name, head, size);
  const mesh = plyMeshElements(h);
  if (typeof mesh === 'string') {
    throw new AppError('bad-input', `${name} cannot be shown: ${mesh}.`, {
      action: 'Open a mesh with triangles (faces).',
    });
  }
  // At least a triangle per face; a polygon's fan adds more, counted as the body is read. The
  // vertices count too: 150 million of them and one face take gigabytes as well.
  return { triangles: mesh.face.count, vertices: mesh.vertex.count, exact: false };
}

export const plyReader: MeshFormatReader = {
  label: 'PLY',
  inspect,
  parse: (buffer, opts) => {
    const name = opts?.name ?? 'The PLY file';
    const head = new Uint8Array(buffer, 0, Math.min(buffer.byteLength, 64 * 1024));
    return readPlyBody(buffer, header(name, head, buffer.byteLength), opts);
  },
};
