/**
 * A Wavefront OBJ's statements, read the same way by the download check and the viewer: vertices
 * ("v x y z", decimal numbers), faces ("f a b c ...", vertex numbers in digits, from 1, or from the
 * end when negative, each naming a vertex listed before it) and everything else skipped, unless its
 * first word is no statement at all (binary data, words joined by a non-breaking space).
 */
import { foreignContent, latin1Text, otherMeshFormat } from './mesh-content.js';
import {
  LineSplitter,
  MeshFault,
  NO_TRIANGLES,
  decimal,
  fmt,
  isBinary,
  isBlankByte,
  lineFault,
  shown,
  unusedVerticesFault,
} from './mesh-text.js';

export interface ObjSink {
  vertex(x: number, y: number, z: number): void;
  /** A face's `n` corners (three or more), as 0-based vertex numbers the mesh has. */
  face(corners: readonly number[], n: number): void;
}

/** Latin-1 text of a UTF-8 byte order mark, which some writers put first. */
const BOM = '\xEF\xBB\xBF';
const V = 118;
const F = 102;
const SLASH = 47;
const isBlankAt = (text: string, at: number): boolean => isBlankByte(text.charCodeAt(at));

/**
 * What is wrong with the first word of a line, from `at`, or undefined: a comment, or printable
 * ASCII (a statement this reader skips: vt, vn, g, usemtl...). Anything else is no OBJ: NUL bytes
 * are binary data, and a non-ASCII byte joins words that should be apart ("f\xA01": a face the
 * check once kept and the viewer dropped).
 */
function firstWordFault(text: string, at: number, lineNo: number): string | undefined {
  if (text.charCodeAt(at) === 35 /* # */) return undefined;
  let end = at;
  let printable = true;
  for (; end < text.length && !isBlankAt(text, end); end++) {
    const c = text.charCodeAt(end);
    if (c < 0x21 || c > 0x7e) printable = false;
  }
  if (printable) return undefined;
  const word = text.slice(at, end);
  return isBinary(word)
    ? `line ${fmt(lineNo)} holds binary data ("${shown(word, 12)}"): it is not an OBJ mesh`
    : `line ${fmt(lineNo)} starts with "${shown(word, 20)}", which is no OBJ statement: only spaces and tabs may separate its words`;
}

/**
 * The first line's first word, as the first bytes of a file show it (latin1 text): a file of zeros
 * or other binary data is refused before it is read, whatever its size.
 */
export function objHeadFault(head: string): string | undefined {
  let at = head.startsWith(BOM) ? BOM.length : 0;
  while (at < head.length && isBlankAt(head, at)) at++;
  return at < head.length && head.charCodeAt(at) !== 10 ? firstWordFault(head, at, 1) : undefined;
}

/**
 * What a file named .obj plainly is instead (a server's error page, a PLY), or binary data by its
 * first bytes, or undefined: the download check and the viewer refuse alike before reading the body.
 */
export function objContentFault(head: Uint8Array, size: number): string | undefined {
  const other = foreignContent(head) ?? otherMeshFormat(head, size);
  if (other) return `it is ${other}, not an OBJ mesh`;
  return objHeadFault(latin1Text(head, 0, head.length));
}

/**
 * Reads an OBJ's text, handed over in pieces to `lines`; `finish` once it is all there. Lines are
 * scanned by character, not split into words: an OBJ has millions of them.
 */
export class ObjText {
  vertices = 0;
  faces = 0;
  triangles = 0;
  readonly lines: LineSplitter;
  private readonly corners: number[] = [];
  private readonly xyz = [0, 0, 0];

  constructor(private readonly sink: ObjSink) {
    this.lines = new LineSplitter('an OBJ mesh', (line, lineNo, terminated) =>
      this.line(line, lineNo, terminated),
    );
  }

  private line(text: string, lineNo: number, terminated: boolean): void {
    let end = text.length;
    let at = lineNo === 1 && text.startsWith(BOM) ? BOM.length : 0;
    while (at < end && isBlankAt(text, at)) at++;
    if (at === end) return;
    const c = text.charCodeAt(at);
    // A comment may also end a statement ("f 1 2 3 # the chin"): what follows "#" is not read.
    const hash = c === V || c === F ? text.indexOf('#', at) : -1;
    if (hash > at) end = (text = text.slice(0, hash)).length;
    if ((c !== V && c !== F) || (at + 1 < end && !isBlankAt(text, at + 1))) {
      const fault = firstWordFault(text, at, lineNo);
      if (fault) throw new MeshFault(fault);
      return;
    }
    if (c === V) this.vertex(text, at + 1, lineNo, terminated);
    else this.face(text, at + 1, lineNo, terminated);
  }

  /** "v x y z [w | r g b]": three decimal numbers, then whatever. */
  private vertex(text: string, at: number, lineNo: number, terminated: boolean): void {
    const xyz = this.xyz;
    let k = 0;
    for (; k < 3; k++) {
      while (at < text.length && isBlankAt(text, at)) at++;
      if (at === text.length) break;
      const from = at;
      while (at < text.length && !isBlankAt(text, at)) at++;
      xyz[k] = decimal(text.slice(from, at));
    }
    if (k < 3) throw lineFault(lineNo, text, terminated, 'a vertex with fewer than 3 coordinates');
    const [x, y, z] = xyz as [number, number, number];
    if (Number.isNaN(x) || Number.isNaN(y) || Number.isNaN(z))
      throw lineFault(lineNo, text, terminated, 'a vertex whose coordinates are not decimal numbers');
    this.sink.vertex(x, y, z);
    this.vertices++;
  }

  /**
   * "f a b c ...", each corner a vertex number in digits (from 1; negative from the end), perhaps
   * followed by "/vt/vn", which is not used: "1.0", "1e0" and "0x1" are no vertex numbers.
   */
  private face(text: string, at: number, lineNo: number, terminated: boolean): void {
    const end = text.length;
    const corners = this.corners;
    let n = 0;
    for (;;) {
      while (at < end && isBlankAt(text, at)) at++;
      if (at === end) break;
      const from = at;
      const sign = text.charCodeAt(at) === 45 ? -1 : 1;
      if (sign < 0 || text.charCodeAt(at) === 43) at++;
      const digits = at;
      let v = 0;
      let c = 0;
      while (at < end && (c = text.charCodeAt(at)) >= 48 && c <= 57) {
        v = v * 10 + c - 48;
        at++;
      }
      if (at === digits || (at < end && c !== SLASH && !isBlankByte(c)))
        throw lineFault(lineNo, text, terminated, 'a face whose corners are not vertex numbers');
      const to = at;
      while (at < end && !isBlankAt(text, at)) at++;
      v *= sign;
      // 1 is the first vertex listed; -1 the last one listed so far.
      const i = v > 0 ? v - 1 : this.vertices + v;
      if (v === 0 || i < 0 || i >= this.vertices)
        throw new MeshFault(
          `a face refers to vertex ${text.slice(from, Math.min(to, from + 24))}, which the mesh does not have (it has ${fmt(this.vertices)} vertices so far)`,
        );
      corners[n++] = i;
    }
    if (n < 3) throw lineFault(lineNo, text, terminated, 'a face with fewer than 3 corners');
    this.sink.face(corners, n);
    this.faces++;
    this.triangles += n - 2;
  }
  /** The text is all there: its last line, then what a whole mesh needs. */
  finish(): void {
    this.lines.end();
    if (this.vertices === 0 || this.faces === 0)
      throw new MeshFault(
        `it has no ${this.vertices === 0 ? 'vertices ("v")' : 'faces ("f")'}: ${NO_TRIANGLES}`,
      );
    const unused = unusedVerticesFault(this.vertices, this.triangles);
    if (unused) throw new MeshFault(unused);
  }
}
