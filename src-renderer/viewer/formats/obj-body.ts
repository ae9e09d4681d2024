/**
 * A Wavefront OBJ's vertices ("v") and faces ("f") read in two passes, not by three's OBJLoader.
 * The first pass only counts, in a byte loop: corners of "f" lines, so the memory budget hears
 * the real triangle count before anything is built (a line of 1,000 corners is 998 triangles in
 * 6 kB: the old estimate of 30 bytes per triangle erred fifteenfold low). The second builds an
 * indexed mesh, each polygon split into a fan as its corners are listed. Every face index is checked
 * against the vertices listed so far (OBJ counts from 1; negative counts back), and a file whose last
 * statement stops mid-way is refused as cut off.
 */
import type { AppError } from '../../../src-shared/errors.js';
import type { ParsedTriangles, ParseOptions } from './format-reader.js';
import { corrupt } from './format-reader.js';
import { missingVertex } from './ply-body.js';

const SPACE = 32;
const TAB = 9;
const NL = 10;
const isBlank = (b: number): boolean => b === SPACE || b === TAB || b === 13;

/** Vertices and triangles (fans of each face) by a byte scan: no strings, no numbers parsed. */
export function countObj(bytes: Uint8Array): { vertices: number; triangles: number } {
  let vertices = 0;
  let triangles = 0;
  let at = 0;
  const n = bytes.length;
  while (at < n) {
    while (at < n && isBlank(bytes[at]!)) at++;
    const c0 = bytes[at];
    const c1 = bytes[at + 1];
    if (c1 === SPACE || c1 === TAB) {
      if (c0 === 118 /* v */) vertices++;
      else if (c0 === 102 /* f */) {
        let corners = 0;
        let inToken = false;
        for (at += 1; at < n && bytes[at] !== NL; at++) {
          const blank = isBlank(bytes[at]!);
          if (!blank && !inToken) corners++;
          inToken = !blank;
        }
        if (corners > 2) triangles += corners - 2;
      }
    }
    while (at < n && bytes[at] !== NL) at++;
    at++;
  }
  return { vertices, triangles };
}

/** The lines of `bytes`, decoded a block of about 1 MB at a time (a whole 1 GB file is no string). */
function forEachLine(bytes: Uint8Array, fn: (line: string, lineNo: number, last: boolean) => void): void {
  const decoder = new TextDecoder('latin1');
  let lineNo = 0;
  for (let from = 0; from < bytes.length;) {
    let to = Math.min(bytes.length, from + (1 << 20));
    while (to < bytes.length && bytes[to - 1] !== NL) to++;
    const lines = decoder.decode(bytes.subarray(from, to)).split('\n');
    // A block ends with a newline (then the last piece is empty) or at the file's end.
    if (lines[lines.length - 1] === '') lines.pop();
    for (let i = 0; i < lines.length; i++)
      fn(lines[i]!, ++lineNo, to === bytes.length && i === lines.length - 1);
    from = to;
  }
}

export function readObjBody(name: string, buffer: ArrayBuffer, opts: ParseOptions = {}): ParsedTriangles {
  const bytes = new Uint8Array(buffer);
  const counted = countObj(bytes);
  opts.checkTriangles?.(counted.triangles);
  const positions = new Float32Array(counted.vertices * 3);
  const index = new Uint32Array(counted.triangles * 3);
  const endsWithNewline = bytes[bytes.length - 1] === NL;
  let v = 0;
  let t = 0;
  let read = 0;
  const bad = (lineNo: number, last: boolean, line: string, what: string): AppError =>
    last && !endsWithNewline
      ? corrupt(
          name,
          `it ends in the middle of a statement ("${line.trim().slice(0, 40)}"), so it is truncated`,
        )
      : corrupt(name, `line ${lineNo.toLocaleString('en-US')} is ${what} ("${line.trim().slice(0, 40)}")`);
  forEachLine(bytes, (line, lineNo, last) => {
    read += line.length + 1;
    if (lineNo % 65_536 === 0) opts.onProgress?.(read / bytes.length);
    const w = line.trim().split(/\s+/);
    if (w[0] === 'v') {
      if (w.length < 4) throw bad(lineNo, last, line, 'a vertex with fewer than 3 coordinates');
      for (let k = 0; k < 3; k++) {
        const x = Number(w[k + 1]);
        if (Number.isNaN(x) && !/^[+-]?nan$/i.test(w[k + 1]!))
          throw bad(lineNo, last, line, 'a vertex whose coordinates are not numbers');
        positions[v * 3 + k] = x;
      }
      v++;
    } else if (w[0] === 'f') {
      if (w.length < 4) throw bad(lineNo, last, line, 'a face with fewer than 3 corners');
      let first = 0;
      let prev = 0;
      for (let k = 1; k < w.length; k++) {
        const token = w[k]!;
        const slash = token.indexOf('/');
        const raw = slash < 0 ? token : token.slice(0, slash);
        if (!/^[+-]?\d+$/.test(raw))
          throw bad(lineNo, last, line, 'a face whose corners are not vertex numbers');
        const n = Number(raw);
        // 1 is the first vertex listed; -1 the last one listed so far.
        const i = n > 0 ? n - 1 : v + n;
        if (n === 0 || i < 0 || i >= v) throw missingVertex(name, n, v);
        if (k === 1) first = i;
        else if (k >= 3) {
          index[t * 3] = first;
          index[t * 3 + 1] = prev;
          index[t * 3 + 2] = i;
          t++;
        }
        prev = i;
      }
    }
  });
  opts.onProgress?.(1);
  return { positions, index: index.subarray(0, t * 3) };
}
