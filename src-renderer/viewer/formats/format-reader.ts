/**
 * What every mesh format module (stl.ts, ply.ts, obj.ts, draco.ts) provides, three.js loaders'
 * way: one module per format, holding its sniffing (the header check), its parsing and its limits.
 * They run in the loader's worker.
 */
import type { BufferGeometry } from 'three';
import { AppError } from '../../../src-shared/errors.js';
import type { LineSplitter } from '../../../src-shared/mesh-text.js';
import type { HeaderFacts } from '../mesh-format.js';

/** Triangles as three's loaders produce them, before welding: a soup, or indexed (PLY, Draco). */
export interface ParsedTriangles {
  positions: Float32Array;
  index: ArrayLike<number> | null;
}

export interface MeshFormatReader {
  /** The format's name in messages ("STL"). */
  label: string;
  /**
   * Checks what the first bytes (up to HEADER_BYTES) promise before anything is parsed: truncated
   * and mislabelled files are refused with a reason, and the triangle count feeds the budget.
   */
  inspect(name: string, head: Uint8Array, size: number): HeaderFacts;
  parse(buffer: ArrayBuffer, opts?: ParseOptions): ParsedTriangles | Promise<ParsedTriangles>;
}

/** What a reader that walks the body itself (PLY, OBJ) reports while it does. */
export interface ParseOptions {
  /** The file as the user knows it, for messages. */
  name?: string;
  /** 0..1 through the body: the worker passes it on, and the watchdog hears the parse is alive. */
  onProgress?: (fraction: number) => void;
  /**
   * Hears the triangle count (and the vertex count, where the file says it) as it becomes known,
   * before memory is taken for them; throws to refuse.
   */
  checkTriangles?: (triangles: number, vertices?: number) => void;
}

export function corrupt(name: string, what: string, action = 'Export or download the mesh again.'): AppError {
  return new AppError('bad-input', `${name} cannot be read: ${what}.`, { action });
}

export function ascii(bytes: Uint8Array, from = 0, to = bytes.length): string {
  return new TextDecoder('latin1').decode(bytes.subarray(from, Math.min(to, bytes.length)));
}

const BLOCK = 1 << 20;

/**
 * Text handed to a reader's lines a block of 1 MiB at a time (a 1 GB file is never one string),
 * decoded by the TextDecoder the download check uses, so both see the same characters.
 */
export function decodeInBlocks(
  bytes: Uint8Array,
  lines: LineSplitter,
  onProgress?: (fraction: number) => void,
): void {
  const latin1 = new TextDecoder('latin1');
  for (let from = 0; from < bytes.length; from += BLOCK) {
    const to = Math.min(bytes.length, from + BLOCK);
    lines.push(latin1.decode(bytes.subarray(from, to)));
    onProgress?.(to / bytes.length);
  }
}

/** The triangles of a geometry from three's loaders, without a copy when they are plain float32. */
export function trianglesOf(geometry: BufferGeometry): ParsedTriangles {
  const position = geometry.getAttribute('position');
  if (!position || position.count === 0) return { positions: new Float32Array(0), index: null };
  const array = position.array;
  // PLY can declare double coordinates; the GPU takes float32 anyway.
  if (
    array instanceof Float32Array &&
    position.itemSize === 3 &&
    !('isInterleavedBufferAttribute' in position)
  ) {
    return { positions: array, index: geometry.index ? geometry.index.array : null };
  }
  const positions = new Float32Array(position.count * 3);
  for (let i = 0; i < position.count; i++) {
    positions[i * 3] = position.getX(i);
    positions[i * 3 + 1] = position.getY(i);
    positions[i * 3 + 2] = position.getZ(i);
  }
  return { positions, index: geometry.index ? geometry.index.array : null };
}
