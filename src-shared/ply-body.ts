/**
 * A PLY's body walked by its header (ply-header.ts), ASCII or binary of either byte order: one walk
 * for the download check and the viewer, which hear each vertex's coordinates and each face's
 * corners from it. What it refuses, both refuse alike: an element declared and not there, an ASCII
 * element that is not one line of exactly its values (the check read lines, the viewer a stream of
 * words: one value too many on a line was kept by one and refused by the other), a word that is no
 * decimal number, a list length that is negative or no whole number, a coordinate that is not a
 * number, a corner the mesh does not have, a face of fewer than 3 corners, data after the last
 * element declared (a header that undercounts would have the rest dropped without a word; a binary
 * STL's count that does the same is refused too), and a mesh with no triangle at all.
 */
import { plyMeshElements } from './ply-header.js';
import type { PlyHeader } from './ply-header.js';
import { PLY_GETTERS, PLY_TYPE_BYTES } from './ply-types.js';
import {
  LineSplitter,
  MeshFault,
  NO_TRIANGLES,
  decimal,
  fmt,
  isBlankByte,
  shown,
  unusedVerticesFault,
  words,
} from './mesh-text.js';

export interface PlySink {
  /** The vertex numbered `i` (from 0, as faces name it). */
  vertex(i: number, x: number, y: number, z: number): void;
  /** A face's corners: 3 or more, vertex numbers the mesh has. */
  face(corners: readonly number[]): void;
}

type Getter = (v: DataView, at: number, le: boolean) => number;

/** One property of an element: where its value goes, and how a binary body stores it. */
interface Slot {
  /** 0, 1, 2: the vertex's x, y, z; -1: none. */
  axis: number;
  /** The face's list of corners. */
  corners: boolean;
  bytes: number;
  get: Getter;
  list: { bytes: number; get: Getter } | null;
}

/** What is wrong with a list's length as read (a float or a negative int may hold one), or undefined. */
function listLengthFault(n: number): string | undefined {
  if (!Number.isInteger(n)) return `a list in its body has a length that is not a whole number (${n})`;
  if (n < 0) return `a list in its body has a negative length (${fmt(n)})`;
  return undefined;
}

/** Walks one PLY body: binary bytes through `binary`, ASCII text through `lines`; then `finish`. */
export class PlyBody {
  triangles = 0;
  /**
   * Bytes the element `binary` stopped before needs, from its start, when a list's length says
   * (0 otherwise): a caller reading a file in chunks knows it cannot be there once fewer bytes are
   * left, and need not carry the rest of the file along (a list of 4 billion items).
   */
  wanted = 0;
  readonly vertices: number;
  readonly lines: LineSplitter;
  private readonly plans: Slot[][];
  private readonly kinds: ('vertex' | 'face' | 'other')[];
  private readonly le: boolean;
  private readonly xyz = [0, 0, 0];
  private readonly corners: number[] = [];
  /** The element being read, and how many of its instances are read. */
  private e = 0;
  private i = 0;

  /** `onProgress` hears the byte offset of a binary body every 65,536 elements. */
  constructor(
    private readonly h: PlyHeader,
    private readonly sink: PlySink,
    private readonly onProgress?: (at: number) => void,
  ) {
    const mesh = plyMeshElements(h);
    if (typeof mesh === 'string') throw new MeshFault(mesh);
    this.vertices = mesh.vertex.count;
    this.le = h.format === 'binary_little_endian';
    this.kinds = h.elements.map((el) =>
      el === mesh.vertex ? 'vertex' : el === mesh.face ? 'face' : 'other',
    );
    this.plans = h.elements.map((el) =>
      el.properties.map((p) => ({
        axis: el === mesh.vertex && !p.list ? ['x', 'y', 'z'].indexOf(p.name) : -1,
        corners: p === mesh.faceList,
        bytes: PLY_TYPE_BYTES[p.type]!,
        get: PLY_GETTERS[p.type]!,
        list: p.list ? { bytes: p.list.bytes, get: PLY_GETTERS[p.list.type]! } : null,
      })),
    );
    this.lines = new LineSplitter(
      'a PLY mesh',
      (line, lineNo, terminated) => this.line(line, lineNo, terminated),
      h.headerLines + 1,
    );
  }

  /** Whether an element remains to be read (moves past the elements read whole). */
  private remains(): boolean {
    const els = this.h.elements;
    while (this.e < els.length && this.i >= els[this.e]!.count) [this.e, this.i] = [this.e + 1, 0];
    return this.e < els.length;
  }

  /**
   * Reads the whole elements in bytes [at, end) of `view` (a binary body), and returns where it
   * stopped: at `end` (past the body's end only blank padding may follow), or before an element
   * `end` cuts (the caller hands it on).
   */
  binary(view: DataView, at: number, end = view.byteLength): number {
    let since = 0;
    while (this.remains()) {
      const next = this.instance(view, at, end);
      if (next < 0) return at;
      at = next;
      this.complete();
      if (++since === 65_536) {
        since = 0;
        this.onProgress?.(at);
      }
    }
    // Past the last element: a stray newline or blank is padding, anything else data the header
    // does not count (faces it leaves out would be dropped without a word). Read, so the caller
    // carries nothing on.
    for (let k = at; k < end; k++) {
      const b = view.getUint8(k);
      if (b !== 10 && !isBlankByte(b)) throw new MeshFault(this.leftOver('binary data'));
    }
    return end;
  }

  /** Data after the last element the header declares: what it is, and what it means. */
  private leftOver(where: string): string {
    const last = this.h.elements[this.h.elements.length - 1]!;
    return `it holds more than its header declares: data follows the last of its ${fmt(last.count)} "${last.name.slice(0, 30)}" elements (${where}), so the header's count is wrong or the file is damaged`;
  }

  /** One binary element from `at`: where it ends, or -1 when `end` comes first. */
  private instance(view: DataView, at: number, end: number): number {
    const start = at;
    this.corners.length = 0;
    this.wanted = 0;
    for (const s of this.plans[this.e]!) {
      if (!s.list) {
        if (at + s.bytes > end) return -1;
        if (s.axis >= 0) this.xyz[s.axis] = s.get(view, at, this.le);
        at += s.bytes;
        continue;
      }
      if (at + s.list.bytes > end) return -1;
      const n = s.list.get(view, at, this.le);
      const fault = listLengthFault(n);
      if (fault) throw new MeshFault(fault);
      at += s.list.bytes;
      if (at + n * s.bytes > end) {
        this.wanted = at + n * s.bytes - start;
        return -1;
      }
      if (s.corners) for (let c = 0; c < n; c++) this.corners.push(s.get(view, at + c * s.bytes, this.le));
      at += n * s.bytes;
    }
    return at;
  }

  /** One ASCII line: a whole element, exactly its values, or a blank line. */
  private line(text: string, lineNo: number, terminated: boolean): void {
    const w = words(text);
    if (w.length === 0) return;
    if (!this.remains()) throw new MeshFault(this.leftOver(`line ${fmt(lineNo)}: "${shown(text, 30)}"`));
    const name = this.h.elements[this.e]!.name.slice(0, 30);
    this.corners.length = 0;
    let t = 0;
    const value = (): number => {
      if (t >= w.length)
        throw new MeshFault(
          terminated
            ? `line ${fmt(lineNo)} has ${w.length} values, too few for a "${name}" element`
            : `it ends in the middle of a "${name}" element (line ${fmt(lineNo)}), so it is truncated`,
        );
      const v = decimal(w[t]);
      if (Number.isNaN(v))
        throw new MeshFault(`line ${fmt(lineNo)} has "${shown(w[t]!, 20)}", which is not a decimal number`);
      t++;
      return v;
    };
    for (const s of this.plans[this.e]!) {
      if (!s.list) {
        const v = value();
        if (s.axis >= 0) this.xyz[s.axis] = v;
        continue;
      }
      const n = value();
      const fault = listLengthFault(n);
      if (fault) throw new MeshFault(fault);
      for (let c = 0; c < n; c++) {
        const v = value();
        if (s.corners) this.corners.push(v);
      }
    }
    if (t < w.length)
      throw new MeshFault(
        `line ${fmt(lineNo)} has ${w.length} values, more than a "${name}" element holds (${t}): each element must be a line of its own`,
      );
    this.complete(`line ${fmt(lineNo)}, "${shown(text, 30)}"`);
  }

  /** An element read whole: checked, and handed to the sink. `line`: an ASCII element's line. */
  private complete(line?: string): void {
    const kind = this.kinds[this.e];
    if (kind === 'vertex') {
      const [x, y, z] = this.xyz as [number, number, number];
      if (!(Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z)))
        throw new MeshFault(`vertex ${fmt(this.i)} has coordinates that are not numbers (NaN or infinite)`);
      this.sink.vertex(this.i, x, y, z);
    } else if (kind === 'face') {
      for (const v of this.corners)
        if (!(Number.isInteger(v) && v >= 0 && v < this.vertices))
          throw new MeshFault(
            `a face refers to vertex ${String(v).slice(0, 24)}, which the mesh does not have (it has ${fmt(this.vertices)} vertices)`,
          );
      // As the OBJ reader says: no triangle can be made of it, and it is no truncation.
      if (this.corners.length < 3)
        throw new MeshFault(
          `face ${fmt(this.i)}${line ? ` (${line})` : ''} has ${this.corners.length} corner${this.corners.length === 1 ? '' : 's'}: a face needs at least 3`,
        );
      this.triangles += this.corners.length - 2;
      this.sink.face(this.corners);
    }
    this.i++;
  }

  /** The body is all there: every element declared was read, and the mesh has a triangle. */
  finish(): void {
    if (this.h.format === 'ascii') this.lines.end();
    if (this.remains()) {
      const el = this.h.elements[this.e]!;
      throw new MeshFault(
        `it ends after ${fmt(this.i)} of the ${fmt(el.count)} "${el.name.slice(0, 30)}" elements its header declares, so it is truncated`,
      );
    }
    if (this.triangles === 0) throw new MeshFault(`${NO_TRIANGLES} (no face has 3 corners)`);
    const unused = unusedVerticesFault(this.vertices, this.triangles);
    if (unused) throw new MeshFault(unused);
  }
}
