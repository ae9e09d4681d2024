/** PLY, ASCII or binary, read by three's PLYLoader. */
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { AppError } from '../../../src-shared/errors.js';
import type { HeaderFacts } from '../mesh-format.js';
import { ascii, corrupt, trianglesOf } from './format-reader.js';
import type { MeshFormatReader } from './format-reader.js';
import { PLY_TYPE_BYTES } from '../../../src-shared/ply-types.js';

interface PlyElement {
  name: string;
  count: number;
  /** Bytes per element in a binary file when all properties are scalars, else null. */
  fixedBytes: number | null;
  /** For list properties: bytes of the count and of one item (a face list of 3 costs count + 3 items). */
  list: { countBytes: number; itemBytes: number } | null;
}

function elementsOf(lines: readonly string[]): PlyElement[] {
  const elements: PlyElement[] = [];
  for (const line of lines) {
    const w = line.trim().split(/\s+/);
    if (w[0] === 'element') {
      elements.push({ name: w[1] ?? '', count: Number(w[2]), fixedBytes: 0, list: null });
    } else if (w[0] === 'property' && elements.length > 0) {
      const el = elements[elements.length - 1]!;
      if (w[1] === 'list') {
        el.list = { countBytes: PLY_TYPE_BYTES[w[2] ?? ''] ?? 0, itemBytes: PLY_TYPE_BYTES[w[3] ?? ''] ?? 0 };
        el.fixedBytes = null;
      } else if (el.fixedBytes !== null) {
        el.fixedBytes += PLY_TYPE_BYTES[w[1] ?? ''] ?? 0;
      }
    }
  }
  return elements;
}

function inspect(name: string, head: Uint8Array, size: number): HeaderFacts {
  const text = ascii(head);
  if (!text.startsWith('ply')) throw corrupt(name, 'it does not start with "ply", so it is not a PLY file');
  const end = text.indexOf('end_header');
  if (end < 0) throw corrupt(name, 'its header never ends ("end_header" is missing)');
  const headerEnd = text.indexOf('\n', end) + 1 || end + 'end_header'.length;
  const lines = text.slice(0, end).split(/\r?\n/);
  const format = lines.find((l) => l.startsWith('format '))?.split(/\s+/)[1] ?? '';
  const elements = elementsOf(lines);
  if (elements.some((e) => !Number.isSafeInteger(e.count) || e.count < 0)) {
    throw corrupt(name, 'its header has an element count that is not a number');
  }
  if (format.startsWith('binary')) {
    // The smallest body the header allows (faces as triangles): a shorter file is cut off.
    let need = headerEnd;
    for (const e of elements) {
      if (e.fixedBytes !== null) need += e.count * e.fixedBytes;
      else if (e.list) need += e.count * (e.list.countBytes + 3 * e.list.itemBytes);
    }
    if (need > size) {
      throw corrupt(
        name,
        `its header announces ${need.toLocaleString('en-US')} bytes of data but the file has ${size.toLocaleString('en-US')}, so it is truncated`,
      );
    }
  }
  const faces = elements.find((e) => e.name === 'face');
  if (!faces || faces.count === 0) {
    throw new AppError('bad-input', `${name} has no faces: it is a point cloud, not a surface mesh.`, {
      action: 'Open a mesh with triangles (faces).',
    });
  }
  // Polygons are split into triangles; quads are the common case beyond triangles.
  return { triangles: faces.count, exact: false };
}

export const plyReader: MeshFormatReader = {
  label: 'PLY',
  inspect,
  parse: (buffer) => trianglesOf(new PLYLoader().parse(buffer)),
};
