/**
 * A PLY body read by its header (src-shared/ply-header.ts), ASCII or binary of either byte order.
 * Not three's PLYLoader: that one keeps only faces of three or four corners (a hexagon is dropped
 * without a word, and a file of hexagons draws as loose vertices), walks elements with no data
 * one by one (2^53 of them: years), and reads an ASCII body that ends early as if it were whole.
 * Here every face is split into a fan of triangles as the list gives its corners, every element
 * declared is read or the file is refused in words, and the caller hears the triangle count grow.
 */
import { AppError } from '../../../src-shared/errors.js';
import { isFaceList } from '../../../src-shared/ply-header.js';
import { PLY_GETTERS, PLY_TYPE_BYTES } from '../../../src-shared/ply-types.js';
import type { PlyElement, PlyHeader, PlyProperty } from '../../../src-shared/ply-header.js';
import type { ParsedTriangles, ParseOptions } from './format-reader.js';
import { corrupt } from './format-reader.js';

const fmt = (n: number): string => n.toLocaleString('en-US');

/** Reads one value of a property's type at the cursor, or a list's count; NaN at the body's end. */
interface ValueSource {
  next(type: string): number;
  /** Where the body stands, 0..1, for progress. */
  fraction(): number;
}

function binarySource(buffer: ArrayBuffer, start: number, littleEndian: boolean): ValueSource {
  const view = new DataView(buffer);
  let at = start;
  return {
    next(type) {
      const bytes = PLY_TYPE_BYTES[type]!;
      if (at + bytes > view.byteLength) return NaN;
      const v = PLY_GETTERS[type]!(view, at, littleEndian);
      at += bytes;
      return v;
    },
    fraction: () => at / view.byteLength,
  };
}

function asciiSource(buffer: ArrayBuffer, start: number): ValueSource {
  const bytes = new Uint8Array(buffer);
  let at = start;
  return {
    next() {
      while (at < bytes.length && bytes[at]! <= 32) at++;
      if (at >= bytes.length) return NaN;
      const from = at;
      while (at < bytes.length && bytes[at]! > 32) at++;
      let token = '';
      for (let i = from; i < at; i++) token += String.fromCharCode(bytes[i]!);
      const v = Number(token);
      // NaN marks the body's end to the caller; a NaN in the file is no number either.
      if (Number.isNaN(v))
        throw new AppError(
          'bad-input',
          `A value in the PLY body is not a number ("${token.slice(0, 20)}").`,
          {
            action: 'The file is corrupt: export or download it again.',
          },
        );
      return v;
    },
    fraction: () => at / bytes.length,
  };
}

/** Reads (and drops) one instance of an element's property. */
function skip(src: ValueSource, p: PlyProperty): boolean {
  if (!p.list) return !Number.isNaN(src.next(p.type));
  const n = src.next(p.list.type);
  if (!(n >= 0)) return false;
  for (let i = 0; i < n; i++) if (Number.isNaN(src.next(p.type))) return false;
  return true;
}

/** Parses a PLY's body into positions and a fan-triangulated index. `name` is for messages. */
export function readPlyBody(
  name: string,
  buffer: ArrayBuffer,
  h: PlyHeader,
  opts: ParseOptions = {},
): ParsedTriangles {
  const src =
    h.format === 'ascii'
      ? asciiSource(buffer, h.headerBytes)
      : binarySource(buffer, h.headerBytes, h.format === 'binary_little_endian');
  // Faces may come before their vertices in principle: the header says how many there are.
  const vertexElement = h.elements.find((e) => e.name === 'vertex');
  const vertices = vertexElement?.count ?? 0;
  const positions = new Float32Array(vertices * 3);
  let index = new Uint32Array(0);
  let triangles = 0;
  const ended = (el: PlyElement, i: number): AppError =>
    corrupt(
      name,
      `it ends after ${fmt(i)} of the ${fmt(el.count)} "${el.name}" elements its header declares, so it is truncated`,
    );
  for (const el of h.elements) {
    const isVertex = el === vertexElement;
    const isFace = el.name === 'face' && index.length === 0;
    if (isFace) index = new Uint32Array(Math.max(3, el.count * 3));
    const axes = el.properties.map((p) => (isVertex && !p.list ? ['x', 'y', 'z'].indexOf(p.name) : -1));
    for (let i = 0; i < el.count; i++) {
      if ((i & 0xffff) === 0xffff) opts.onProgress?.(src.fraction());
      for (let k = 0; k < el.properties.length; k++) {
        const p = el.properties[k]!;
        if (isFace && isFaceList(el, p)) {
          const n = src.next(p.list!.type);
          if (Number.isNaN(n)) throw ended(el, i);
          const fan = n - 2;
          if (fan <= 0) {
            for (let c = 0; c < n; c++) if (Number.isNaN(src.next(p.type))) throw ended(el, i);
            continue;
          }
          if ((triangles + fan) * 3 > index.length) {
            opts.checkTriangles?.(triangles + fan);
            const grown = new Uint32Array(Math.max(index.length * 2, (triangles + fan) * 3));
            grown.set(index);
            index = grown;
          }
          let first = -1;
          let prev = -1;
          for (let c = 0; c < n; c++) {
            const v = src.next(p.type);
            if (Number.isNaN(v)) throw ended(el, i);
            if (!(v >= 0 && v < vertices && Number.isInteger(v))) throw missingVertex(name, v, vertices);
            if (c === 0) first = v;
            else if (c >= 2) {
              index[triangles * 3] = first;
              index[triangles * 3 + 1] = prev;
              index[triangles * 3 + 2] = v;
              triangles++;
            }
            prev = v;
          }
        } else if (axes[k]! >= 0) {
          const v = src.next(p.type);
          if (Number.isNaN(v)) throw ended(el, i);
          positions[i * 3 + axes[k]!] = v;
        } else if (!skip(src, p)) throw ended(el, i);
      }
    }
  }
  opts.onProgress?.(1);
  return { positions, index: index.subarray(0, triangles * 3) };
}

export function missingVertex(name: string, v: number, vertices: number): AppError {
  return corrupt(
    name,
    `a face refers to vertex ${String(v).slice(0, 24)}, which the mesh does not have (it has ${fmt(vertices)} vertices)`,
  );
}
