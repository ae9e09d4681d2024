/**
 * A PLY body read into positions and a fan-triangulated index, by the walk the download check uses
 * too (src-shared/ply-body.ts): what one refuses, the other does, in the same words. Not three's
 * PLYLoader: that one keeps only faces of three or four corners (a hexagon is dropped without a
 * word), walks elements with no data one by one (2^53 of them: years), and reads an ASCII body that
 * ends early as if it were whole. Here every face is split into a fan of triangles as the list
 * gives its corners, and the caller hears the triangle count grow before memory is taken for it.
 */
import { PlyBody } from '../../../src-shared/ply-body.js';
import type { PlyHeader } from '../../../src-shared/ply-header.js';
import type { ParsedTriangles, ParseOptions } from './format-reader.js';
import { decodeInBlocks } from './format-reader.js';

/** Parses a PLY's body into positions and a fan-triangulated index. */
export function readPlyBody(buffer: ArrayBuffer, h: PlyHeader, opts: ParseOptions = {}): ParsedTriangles {
  // Faces may come before their vertices: the header says how many there are.
  const vertices = h.elements.find((e) => e.name === 'vertex')?.count ?? 0;
  const faces = h.elements.find((e) => e.name === 'face')?.count ?? 0;
  const positions = new Float32Array(vertices * 3);
  let index = new Uint32Array(Math.max(3, faces * 3));
  let triangles = 0;
  const body = new PlyBody(
    h,
    {
      vertex(i, x, y, z) {
        positions[i * 3] = x;
        positions[i * 3 + 1] = y;
        positions[i * 3 + 2] = z;
      },
      face(corners) {
        const fan = corners.length - 2;
        if (fan <= 0) return;
        if ((triangles + fan) * 3 > index.length) {
          opts.checkTriangles?.(triangles + fan, vertices);
          const grown = new Uint32Array(Math.max(index.length * 2, (triangles + fan) * 3));
          grown.set(index);
          index = grown;
        }
        for (let c = 2; c < corners.length; c++) {
          index[triangles * 3] = corners[0]!;
          index[triangles * 3 + 1] = corners[c - 1]!;
          index[triangles * 3 + 2] = corners[c]!;
          triangles++;
        }
      },
    },
    (at) => opts.onProgress?.(at / buffer.byteLength),
  );
  if (h.format === 'ascii')
    decodeInBlocks(new Uint8Array(buffer, h.headerBytes), body.lines, opts.onProgress);
  else body.binary(new DataView(buffer), h.headerBytes);
  body.finish();
  opts.onProgress?.(1);
  return { positions, index: index.subarray(0, triangles * 3) };
}
