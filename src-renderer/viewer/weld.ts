import { AppError } from '../../src-shared/errors.js';
import { areaWeightedNormals, noArea } from '../../src-shared/mesh-geometry.js';
import { robustBounds } from './robust-extent.js';
import type { Outliers } from './robust-extent.js';

/** An indexed triangle mesh whose arrays can be transferred between threads as they are. */
export interface IndexedMesh {
  positions: Float32Array;
  normals: Float32Array;
  index: Uint16Array | Uint32Array;
  /**
   * [minX, minY, minZ, maxX, maxY, maxZ] in the mesh's units (mm) of the bulk of its vertices: what
   * the camera frames and the size stated (robust-extent.ts).
   */
  bounds: [number, number, number, number, number, number];
  /** Vertices far outside `bounds`, to be told in words; null when there are none. */
  outliers: Outliers | null;
  /** Bounding sphere [cx, cy, cz, r], so the main thread never walks the vertices. */
  sphere: [number, number, number, number];
  triangles: number;
  /** Triangles with no area (corners on one point or one line): they draw nothing. */
  degenerate: number;
}

export interface WeldResult {
  positions: Float32Array;
  index: Uint16Array | Uint32Array;
  degenerate: number;
}

const NEGATIVE_ZERO = 0x80000000 | 0;
const EXPONENT = 0x7f800000;
/** Slots of the small table of recent vertices (a power of two): 64 KB, within a core's cache. */
const RECENT_SLOTS = 1 << 14;

function nextPow2(n: number): number {
  let p = 16;
  while (p < n) p *= 2;
  return p;
}

/**
 * Float bits of round numbers (grids, CT voxel corners) have all-zero low mantissa bits: fold the
 * high halves down before multiplying, then finish with murmur3's fmix32 so every bit counts.
 */
function hash3(x: number, y: number, z: number): number {
  let h = x ^ Math.imul(y ^ (y >>> 16), 0x9e3779b1) ^ Math.imul(z ^ (z >>> 16), 0x27d4eb2f);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function rehash(outBits: Int32Array, unique: number, capacity: number): Int32Array<ArrayBuffer> {
  const mask = capacity - 1;
  const table = new Int32Array(capacity);
  for (let id = 0; id < unique; id++) {
    let slot = hash3(outBits[id * 3]!, outBits[id * 3 + 1]!, outBits[id * 3 + 2]!) & mask;
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = id + 1;
  }
  return table;
}

/**
 * Merges vertices with bit-identical positions (after folding -0 into +0) into one, a vertex at a
 * time: each gets the number of the first vertex at its place, numbered in the order they came.
 * Fed by weldVertices (a parsed mesh) or by a binary STL as its bytes arrive (stl-stream.ts).
 */
export class VertexWelder {
  private capacity: number;
  private mask: number;
  private table: Int32Array; // welded id + 1; 0 marks an empty slot
  private outBits: Int32Array;
  /**
   * The last vertex seen at each of 16,384 hash values: files list a vertex again a few triangles
   * later (an STL lists each corner about six times, close together), so 9 in 10 repeats are found
   * here, in a table that stays in the processor's cache, instead of by a probe of the big one.
   */
  private readonly recent = new Int32Array(RECENT_SLOTS); // welded id + 1; 0: none yet
  /** Distinct vertices so far. */
  unique = 0;

  /** `expected`: about how many distinct vertices will come (the table grows past it). */
  constructor(expected: number) {
    this.capacity = nextPow2(2 * expected);
    this.mask = this.capacity - 1;
    this.table = new Int32Array(this.capacity);
    this.outBits = new Int32Array(Math.max(48, (this.capacity / 2) * 3));
  }

  /** The welded number of the vertex whose coordinates have these float bits (as Int32). */
  add(x: number, y: number, z: number): number {
    if ((x & EXPONENT) === EXPONENT || (y & EXPONENT) === EXPONENT || (z & EXPONENT) === EXPONENT) {
      throw new AppError(
        'bad-input',
        'The mesh has vertices whose coordinates are not numbers (NaN or infinite).',
        {
          action: 'Repair or export the mesh again.',
        },
      );
    }
    if (x === NEGATIVE_ZERO) x = 0;
    if (y === NEGATIVE_ZERO) y = 0;
    if (z === NEGATIVE_ZERO) z = 0;
    const h = hash3(x, y, z);
    const out = this.outBits;
    const seen = this.recent[h & (RECENT_SLOTS - 1)]! - 1;
    if (seen >= 0 && out[seen * 3] === x && out[seen * 3 + 1] === y && out[seen * 3 + 2] === z) return seen;
    const id = this.findOrInsert(x, y, z, h);
    this.recent[h & (RECENT_SLOTS - 1)] = id + 1;
    return id;
  }

  /** The big table's way, apart so that add() stays small enough to be inlined in the callers' loops. */
  private findOrInsert(x: number, y: number, z: number, h: number): number {
    let slot = h & this.mask;
    for (;;) {
      const entry = this.table[slot]!;
      if (entry === 0) break;
      const o = (entry - 1) * 3;
      if (this.outBits[o] === x && this.outBits[o + 1] === y && this.outBits[o + 2] === z) return entry - 1;
      slot = (slot + 1) & this.mask;
    }
    const id = this.unique++;
    if (id * 3 + 3 > this.outBits.length) {
      const bigger = new Int32Array(this.outBits.length * 2);
      bigger.set(this.outBits);
      this.outBits = bigger;
    }
    this.outBits[id * 3] = x;
    this.outBits[id * 3 + 1] = y;
    this.outBits[id * 3 + 2] = z;
    this.table[slot] = id + 1;
    // Linear probing degrades past half full.
    if (this.unique * 2 > this.capacity) {
      this.capacity *= 2;
      this.mask = this.capacity - 1;
      this.table = rehash(this.outBits, this.unique, this.capacity);
    }
    return id;
  }

  /** The welded positions, in a copy of exactly the used length (it is transferred: slack would travel and stay resident). */
  positions(): Float32Array {
    return new Float32Array(this.outBits.buffer.slice(0, this.unique * 12));
  }
}

/**
 * The index in its smallest type, and how many triangles have no area: two corners on one welded
 * vertex, or three distinct corners on one line (they draw nothing either). `corners` is reused
 * when it already has the right type.
 */
export function finishIndex(
  corners: Uint32Array,
  positions: Float32Array,
): { index: Uint16Array | Uint32Array; degenerate: number } {
  let degenerate = 0;
  for (let c = 0; c < corners.length; c += 3) {
    if (noArea(positions, corners[c]!, corners[c + 1]!, corners[c + 2]!)) degenerate++;
  }
  return { index: positions.length / 3 <= 0xffff ? new Uint16Array(corners) : corners, degenerate };
}

/**
 * Merges vertices with bit-identical positions (after folding -0 into +0) into one, and returns
 * the indexed triangles that use them. STL and triangle soups repeat each vertex about six times;
 * welding shrinks positions about sixfold and makes smooth normals possible.
 *
 * @param source non-indexed (3 vertices per triangle) or indexed positions
 * @param sourceIndex triangle corner indices into source, or null for a triangle soup
 */
export function weldVertices(
  source: Float32Array,
  sourceIndex: ArrayLike<number> | null,
  onProgress?: (fraction: number) => void,
): WeldResult {
  const vertexCount = Math.floor(source.length / 3);
  const cornerCount = sourceIndex ? sourceIndex.length : vertexCount;
  if (cornerCount % 3 !== 0) {
    throw new AppError(
      'bad-input',
      `The mesh has ${cornerCount} triangle corners, which is not a multiple of 3.`,
      {
        action: 'Export the mesh again as triangles.',
      },
    );
  }
  // Int32 views keep the float bits as untagged integers in optimised code (Uint32 values above
  // 2^31 would become doubles).
  const bits = new Int32Array(source.buffer, source.byteOffset, vertexCount * 3);
  // A closed triangle soup has about corners/6 distinct vertices; an indexed mesh has at most vertexCount.
  const welder = new VertexWelder(sourceIndex ? vertexCount : Math.ceil(vertexCount / 6));
  const remap = new Uint32Array(vertexCount);
  const progressStep = 1 << 20;
  for (let v = 0; v < vertexCount; v++) {
    if (onProgress && v % progressStep === 0 && v > 0) onProgress(v / vertexCount);
    remap[v] = welder.add(bits[v * 3]!, bits[v * 3 + 1]!, bits[v * 3 + 2]!);
  }
  let corners = remap;
  if (sourceIndex) {
    corners = new Uint32Array(cornerCount);
    for (let c = 0; c < cornerCount; c++) {
      const i = sourceIndex[c]!;
      if (!(i < vertexCount)) {
        throw new AppError(
          'bad-input',
          `A triangle refers to a vertex the mesh does not have (of ${vertexCount}).`,
          {
            action: 'The file is corrupt: export or download it again.',
          },
        );
      }
      corners[c] = remap[i]!;
    }
  }
  onProgress?.(1);
  const positions = welder.positions();
  const { index, degenerate } = finishIndex(corners, positions);
  return { positions, index, degenerate };
}

export function boundsOf(positions: Float32Array): IndexedMesh['bounds'] {
  let minX = Infinity,
    minY = Infinity,
    minZ = Infinity,
    maxX = -Infinity,
    maxY = -Infinity,
    maxZ = -Infinity;
  for (let i = 0; i < positions.length; i += 3) {
    const x = positions[i]!,
      y = positions[i + 1]!,
      z = positions[i + 2]!;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  }
  return [minX, minY, minZ, maxX, maxY, maxZ];
}

/** A sphere around the box centre that holds every vertex (what three's computeBoundingSphere yields). */
export function boundingSphere(positions: Float32Array, b: IndexedMesh['bounds']): IndexedMesh['sphere'] {
  const cx = (b[0] + b[3]) / 2,
    cy = (b[1] + b[4]) / 2,
    cz = (b[2] + b[5]) / 2;
  let r2 = 0;
  for (let i = 0; i < positions.length; i += 3) {
    const dx = positions[i]! - cx,
      dy = positions[i + 1]! - cy,
      dz = positions[i + 2]! - cz;
    const d = dx * dx + dy * dy + dz * dz;
    if (d > r2) r2 = d;
  }
  return [cx, cy, cz, Math.sqrt(r2)];
}

/** Welds, computes normals and bounds: everything the renderer needs, off the main thread. */
export function buildIndexedMesh(
  source: Float32Array,
  sourceIndex: ArrayLike<number> | null,
  onProgress?: (stage: 'weld' | 'normals', fraction: number) => void,
): IndexedMesh {
  const welded = weldVertices(source, sourceIndex, (f) => onProgress?.('weld', f));
  return indexedMeshOf(welded, (f) => onProgress?.('normals', f));
}

/** A welded mesh checked (it must show something), with its normals, bounds and bounding sphere. */
export function indexedMeshOf(welded: WeldResult, onProgress?: (fraction: number) => void): IndexedMesh {
  const { positions, index, degenerate } = welded;
  const triangles = index.length / 3;
  if (triangles === 0) {
    throw new AppError('bad-input', 'The mesh contains no triangles.', {
      action: 'Open a file that holds a surface mesh.',
    });
  }
  if (degenerate === triangles) {
    const what =
      triangles === 1
        ? 'The only triangle of the mesh is'
        : `All ${triangles.toLocaleString('en-US')} triangles of the mesh are`;
    throw new AppError(
      'bad-input',
      `${what} degenerate (zero area): there is no surface to show, its corners lying on one point or one line.`,
      {
        action: 'Export the mesh again.',
      },
    );
  }
  onProgress?.(0);
  const normals = areaWeightedNormals(positions, index);
  const { bounds, outliers } = robustBounds(positions, boundsOf(positions));
  // With strays left out, the sphere is the bulk's box's: one around every vertex would hold them.
  const sphere: IndexedMesh['sphere'] = outliers
    ? [
        (bounds[0] + bounds[3]) / 2,
        (bounds[1] + bounds[4]) / 2,
        (bounds[2] + bounds[5]) / 2,
        diagonal(bounds) / 2,
      ]
    : boundingSphere(positions, bounds);
  onProgress?.(1);
  return { positions, normals, index, bounds, outliers, sphere, triangles, degenerate };
}

function diagonal(b: IndexedMesh['bounds']): number {
  return Math.hypot(b[3] - b[0], b[4] - b[1], b[5] - b[2]);
}
