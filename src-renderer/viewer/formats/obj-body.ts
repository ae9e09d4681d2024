/**
 * A Wavefront OBJ's vertices ("v") and faces ("f") read in two passes, not by three's OBJLoader.
 * The first pass only counts, in a byte loop: corners of "f" lines, so the memory budget hears
 * the real triangle count before anything is built (a line of 1,000 corners is 998 triangles in
 * 6 kB: the old estimate of 30 bytes per triangle erred fifteenfold low). The second is the
 * statement reader the download check uses too (src-shared/obj-text.ts), which builds an indexed
 * mesh, each polygon split into a fan as its corners are listed.
 */
import { isBlankByte } from '../../../src-shared/mesh-text.js';
import { ObjText } from '../../../src-shared/obj-text.js';
import type { ParsedTriangles, ParseOptions } from './format-reader.js';
import { decodeInBlocks } from './format-reader.js';

const NL = 10;

/**
 * Vertices and triangles (fans of each face) by a byte scan: no strings, no numbers parsed. Words
 * are told apart as the reader does (isBlankByte), so what it reads is what was counted.
 */
export function countObj(bytes: Uint8Array): { vertices: number; triangles: number } {
  let vertices = 0;
  let triangles = 0;
  const n = bytes.length;
  // A UTF-8 byte order mark before the first statement, which the reader skips too.
  let at = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (at < n) {
    while (at < n && isBlankByte(bytes[at]!)) at++;
    const c0 = bytes[at];
    const c1 = bytes[at + 1];
    if (c1 !== undefined && isBlankByte(c1)) {
      if (c0 === 118 /* v */) vertices++;
      else if (c0 === 102 /* f */) {
        let corners = 0;
        let inWord = false;
        for (at += 1; at < n && bytes[at] !== NL; at++) {
          const blank = isBlankByte(bytes[at]!);
          if (!blank && !inWord) corners++;
          inWord = !blank;
        }
        if (corners > 2) triangles += corners - 2;
      }
    }
    while (at < n && bytes[at] !== NL) at++;
    at++;
  }
  return { vertices, triangles };
}

/** The arrays were sized by countObj: a reader that finds more than it counted is a bug here. */
const miscounted = (): Error => new Error('the OBJ reader found more than its count');

export function readObjBody(buffer: ArrayBuffer, opts: ParseOptions = {}): ParsedTriangles {
  const bytes = new Uint8Array(buffer);
  const counted = countObj(bytes);
  opts.checkTriangles?.(counted.triangles, counted.vertices);
  const positions = new Float32Array(counted.vertices * 3);
  const index = new Uint32Array(counted.triangles * 3);
  let v = 0;
  let t = 0;
  const obj = new ObjText({
    vertex(x, y, z) {
      if (v >= counted.vertices) throw miscounted();
      positions[v * 3] = x;
      positions[v * 3 + 1] = y;
      positions[v * 3 + 2] = z;
      v++;
    },
    face(corners, n) {
      if (t + n - 2 > counted.triangles) throw miscounted();
      for (let c = 2; c < n; c++) {
        index[t * 3] = corners[0]!;
        index[t * 3 + 1] = corners[c - 1]!;
        index[t * 3 + 2] = corners[c]!;
        t++;
      }
    },
  });
  decodeInBlocks(bytes, obj.lines, opts.onProgress);
  obj.finish();
  opts.onProgress?.(1);
  return { positions, index: index.subarray(0, t * 3) };
}
