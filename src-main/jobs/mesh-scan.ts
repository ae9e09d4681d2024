/**
 * Reading a downloaded mesh once, front to back, in chunks of 1 MiB: the main process stays
 * responsive (each chunk is a short task) and holds one chunk, not the file. Shared by the checks
 * of mesh-check.ts and mesh-check-ply.ts. A mesh of one chunk or less comes whole with its head
 * (output-place.ts) and is not opened again.
 */
import { createReadStream } from 'node:fs';
import { MAX_COORDINATE } from '../../src-shared/mesh-content.js';
import { noArea } from '../../src-shared/mesh-geometry.js';
import { MeshFault, NO_TRIANGLES, fmt } from '../../src-shared/mesh-text.js';
import type { LineSplitter } from '../../src-shared/mesh-text.js';

/** What is wrong with the file, in words ending the check's sentence (shared with the viewer). */
export { MeshFault };

export const CHUNK = 1 << 20;

/**
 * A downloaded mesh to read: its path, and all its bytes when they were read with its head (a file
 * of a chunk or less: a second open, read and close would be three more round trips per download).
 */
export interface MeshFile {
  path: string;
  whole: Buffer | undefined;
}

/** Bytes [start, end) of the file, a chunk at a time. */
async function* chunks(file: MeshFile, start: number, end: number): AsyncGenerator<Buffer> {
  if (end <= start) return;
  const { whole } = file;
  if (whole) {
    for (let at = start; at < end; at += CHUNK) yield whole.subarray(at, Math.min(end, at + CHUNK));
    return;
  }
  yield* createReadStream(file.path, { start, end: end - 1, highWaterMark: CHUNK }) as AsyncIterable<Buffer>;
}

/** Each chunk of bytes [start, end) in order. */
export async function forEachChunk(
  file: MeshFile,
  start: number,
  end: number,
  fn: (chunk: Buffer) => void,
): Promise<void> {
  for await (const chunk of chunks(file, start, end)) fn(chunk);
}

/** Text is read on in slices this long, the event loop let run between them. */
const TEXT_SLICE = 256 * 1024;

/**
 * Bytes [start, size) handed to `lines` as latin1 text (the reader's `finish` ends the text). The
 * viewer decodes with the same TextDecoder, so both see the same characters. A chunk of short lines
 * is over 100,000 statements: it is read a slice at a time, and the window and the queue are
 * served in between.
 */
export async function scanText(
  file: MeshFile,
  start: number,
  size: number,
  lines: LineSplitter,
): Promise<void> {
  const latin1 = new TextDecoder('latin1');
  for await (const bytes of chunks(file, start, size)) {
    for (let from = 0; from < bytes.length; from += TEXT_SLICE) {
      if (from > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      lines.push(latin1.decode(bytes.subarray(from, Math.min(bytes.length, from + TEXT_SLICE))));
    }
  }
}

/** A vertex's coordinate that no anatomy has: not a number, or beyond MAX_COORDINATE. */
export function coordinateFault(x: number): string | undefined {
  if (!Number.isFinite(x)) return 'a vertex has coordinates that are not numbers (NaN or infinite)';
  if (Math.abs(x) > MAX_COORDINATE)
    return `it has coordinates as large as ${Math.abs(x) < 1e9 ? fmt(x) : x.toPrecision(3)}, beyond ±${MAX_COORDINATE.toLocaleString('en-US')} mm, where no anatomy lies`;
  return undefined;
}

export function checkCoordinate(x: number): void {
  const fault = coordinateFault(x);
  if (fault) throw new MeshFault(fault);
}

/** What a check learnt of a whole mesh: its triangles, and how many have no area (undefined: not judged). */
export interface SurfaceCount {
  triangles: number;
  degenerate: number | undefined;
}

/**
 * Whether a mesh shows anything, and how much of it draws nothing: the viewer refuses one whose
 * every triangle has no area (corners on one point or one line, as float32 like the viewer's) and
 * warns of any such triangle, so the download check refuses and notes alike. Fed the vertices and
 * then the faces as a check reads them; every triangle is judged, as the viewer judges every one.
 */
export class SurfaceWitness {
  /**
   * Past this many vertices the question is left to the viewer, which asks it of every mesh it
   * shows: a copy here takes 12 bytes a vertex, more than some files spend on one.
   */
  static readonly MAX_VERTICES = 16_000_000;
  private positions: Float32Array;
  private vertices = 0;
  private readonly corner = new Float32Array(9);
  private flat = 0;
  /** Triangles fed, judged or not. */
  private seen = 0;
  /** The mesh is too large to judge here: triangles are only counted. */
  private tooLarge = false;

  /** `expected`: the vertex count a header announced (its file's size bounds it), else 0. */
  constructor(expected = 0) {
    if (expected > SurfaceWitness.MAX_VERTICES) this.tooLarge = true;
    this.positions = new Float32Array(3 * Math.max(Math.min(expected, SurfaceWitness.MAX_VERTICES), 256));
  }

  vertex(x: number, y: number, z: number): void {
    if (this.tooLarge) return;
    if (3 * this.vertices + 3 > this.positions.length) {
      if (this.vertices >= SurfaceWitness.MAX_VERTICES) {
        this.tooLarge = true;
        return;
      }
      const grown = new Float32Array(Math.min(this.positions.length * 2, 3 * SurfaceWitness.MAX_VERTICES));
      grown.set(this.positions);
      this.positions = grown;
    }
    const at = 3 * this.vertices++;
    this.positions[at] = x;
    this.positions[at + 1] = y;
    this.positions[at + 2] = z;
  }

  /** A face of `n` corners (0-based vertex numbers, checked by the caller), as a fan. */
  face(corners: ArrayLike<number>, n = corners.length): void {
    if (n > 2) this.seen += n - 2;
    if (this.tooLarge) return;
    for (let k = 1; k + 1 < n; k++)
      if (noArea(this.positions, corners[0]!, corners[k]!, corners[k + 1]!)) this.flat++;
  }

  /** Whether triangles are judged (feed them their corners); else they are only counted. */
  get open(): boolean {
    return !this.tooLarge;
  }

  /** A triangle given by its corners' 9 coordinates (an STL facet). */
  triangle(corners: ArrayLike<number>): void {
    this.seen++;
    if (this.tooLarge) return;
    for (let k = 0; k < 9; k++) this.corner[k] = corners[k]!;
    if (noArea(this.corner, 0, 1, 2)) this.flat++;
  }

  /** Throws when no triangle was fed, or none has area; else what was counted. */
  check(): SurfaceCount {
    if (this.seen === 0) throw new MeshFault(NO_TRIANGLES);
    if (this.tooLarge) return { triangles: this.seen, degenerate: undefined };
    if (this.flat < this.seen) return { triangles: this.seen, degenerate: this.flat };
    throw new MeshFault(
      `${this.flat === 1 ? 'its only triangle is' : `all ${fmt(this.flat)} of its triangles are`} degenerate (zero area), corners on one point or one line: there is no surface to show`,
    );
  }
}
