/**
 * Splits a welded mesh into chunks the main thread can hand to the GPU a few per animation frame
 * (see draw-batches.ts). Uploading and drawing a 400k-triangle mesh in one frame blocks the main
 * thread for hundreds of ms; a chunk of 16k triangles is a short task, and the frame budget takes
 * as many chunks as the machine draws in time. Each chunk draws a contiguous range of the index
 * and owns a contiguous range of the vertex arrays, so its attributes are views (subarrays) of
 * the mesh's arrays: nothing is copied on the main thread. All of it runs in the loader's worker.
 */
import { boundingSphere, boundsOf } from './weld.js';
import type { IndexedMesh } from './weld.js';

/** About 0.3 MB of vertex and index data; a software renderer rasterises it in 10-20 ms. */
export const CHUNK_TRIANGLES = 16_384;

export interface MeshChunk {
  /** First index entry (3 per triangle) and how many entries the chunk draws. */
  start: number;
  count: number;
  /** The chunk's own vertex range; its index entries count from firstVertex. */
  firstVertex: number;
  vertexCount: number;
  bounds: IndexedMesh['bounds'];
  sphere: IndexedMesh['sphere'];
}

/**
 * A mesh ready for chunked upload: `index` holds chunk-local vertex numbers (see MeshChunk).
 * A vertex shared by triangles of two chunks is stored once per chunk, with the same normal,
 * so shading shows no seam.
 */
export interface ChunkedMesh extends IndexedMesh {
  chunks: MeshChunk[];
}

/** Cells per axis for the spatial order: 32^3 cells, one counting-sort pass. */
const GRID_BITS = 5;

/** Spreads the low 5 bits of v to every third bit (bit i goes to bit 3i). */
function spread3(v: number): number {
  let x = v & 0x1f;
  x = (x | (x << 8)) & 0x100f;
  x = (x | (x << 4)) & 0x10c3;
  x = (x | (x << 2)) & 0x1249;
  return x;
}

/**
 * Triangle numbers in a spatially coherent order (a Z-order curve over a 32^3 grid of the
 * bounding box, by centroid), stable within a cell. Files list triangles in any order; chunks
 * of nearby triangles share few vertices with other chunks.
 */
export function spatialOrder(
  positions: Float32Array,
  index: ArrayLike<number>,
  bounds: IndexedMesh['bounds'],
): Uint32Array {
  const triangles = Math.floor(index.length / 3);
  const cells = 1 << (3 * GRID_BITS);
  const side = 1 << GRID_BITS;
  // Centroid cell = floor((sum of corners / 3 - min) * side / extent): the / 3 folds into the scale.
  const scale = (k: number): number => {
    const extent = bounds[k + 3]! - bounds[k]!;
    return extent > 0 ? side / extent / 3 : 0;
  };
  const [sx, sy, sz] = [scale(0), scale(1), scale(2)];
  const [ox, oy, oz] = [3 * bounds[0], 3 * bounds[1], 3 * bounds[2]];
  const cell = (v: number): number => Math.min(side - 1, Math.max(0, Math.floor(v)));
  const keys = new Uint16Array(triangles);
  const counts = new Uint32Array(cells + 1);
  // Scalar code in the loop: an array per triangle would cost more than the sort itself.
  for (let t = 0; t < triangles; t++) {
    const a = index[3 * t]! * 3;
    const b = index[3 * t + 1]! * 3;
    const c = index[3 * t + 2]! * 3;
    const x = cell((positions[a]! + positions[b]! + positions[c]! - ox) * sx);
    const y = cell((positions[a + 1]! + positions[b + 1]! + positions[c + 1]! - oy) * sy);
    const z = cell((positions[a + 2]! + positions[b + 2]! + positions[c + 2]! - oz) * sz);
    const key = spread3(x) | (spread3(y) << 1) | (spread3(z) << 2);
    keys[t] = key;
    counts[key + 1]!++;
  }
  for (let c = 0; c < cells; c++) counts[c + 1]! += counts[c]!;
  const order = new Uint32Array(triangles);
  for (let t = 0; t < triangles; t++) order[counts[keys[t]!]!++] = t;
  return order;
}

/** Triangles per chunk: at most maxTriangles, in order, covering all. */
export function planChunks(
  triangles: number,
  maxTriangles: number = CHUNK_TRIANGLES,
): [start: number, count: number][] {
  const step = Math.max(1, Math.floor(maxTriangles));
  const plan: [number, number][] = [];
  for (let t = 0; t < triangles; t += step) plan.push([t, Math.min(step, triangles - t)]);
  return plan;
}

/** Grows a vertex array to hold `vertices`, keeping its contents. */
function grown(a: Float32Array, vertices: number): Float32Array<ArrayBuffer> {
  const b = new Float32Array(vertices * 3);
  b.set(a);
  return b;
}

/**
 * Turns a welded mesh into chunks: triangles in spatial order, cut into runs, each run's
 * vertices gathered into its own range with chunk-local index numbers, and each chunk's bounds
 * computed here, off the main thread. Chunk-local numbers are 16-bit whenever every chunk has
 * fewer than 65,536 vertices (nearly always): half the index memory and upload.
 */
export function chunkMesh(mesh: IndexedMesh, maxTriangles: number = CHUNK_TRIANGLES): ChunkedMesh {
  const { positions, normals, index } = mesh;
  const triangles = index.length / 3;
  const order = spatialOrder(positions, index, mesh.bounds);
  const vertexCount = positions.length / 3;
  // Per source vertex: the chunk that last stored it and its number there.
  const stamp = new Int32Array(vertexCount).fill(-1);
  const local = new Uint32Array(vertexCount);
  let capacity = Math.ceil(vertexCount * 1.25) + 16;
  let outPositions = new Float32Array(capacity * 3);
  let outNormals = new Float32Array(capacity * 3);
  const outIndex = new Uint32Array(index.length);
  let stored = 0;
  let widest = 0;
  const chunks: MeshChunk[] = planChunks(triangles, maxTriangles).map(([first, count], c) => {
    const firstVertex = stored;
    for (let t = first; t < first + count; t++) {
      const tri = order[t]!;
      for (let corner = 0; corner < 3; corner++) {
        const v = index[tri * 3 + corner]!;
        if (stamp[v] !== c) {
          stamp[v] = c;
          local[v] = stored - firstVertex;
          if (stored === capacity) {
            capacity *= 2;
            outPositions = grown(outPositions, capacity);
            outNormals = grown(outNormals, capacity);
          }
          const from = v * 3;
          const to = stored * 3;
          outPositions[to] = positions[from]!;
          outPositions[to + 1] = positions[from + 1]!;
          outPositions[to + 2] = positions[from + 2]!;
          outNormals[to] = normals[from]!;
          outNormals[to + 1] = normals[from + 1]!;
          outNormals[to + 2] = normals[from + 2]!;
          stored++;
        }
        outIndex[t * 3 + corner] = local[v]!;
      }
    }
    widest = Math.max(widest, stored - firstVertex);
    const view = outPositions.subarray(firstVertex * 3, stored * 3);
    const bounds = boundsOf(view);
    return {
      start: first * 3,
      count: count * 3,
      firstVertex,
      vertexCount: stored - firstVertex,
      bounds,
      sphere: boundingSphere(view, bounds),
    };
  });
  // Exact-size arrays: each is transferred to the main thread whole.
  return {
    ...mesh,
    positions: outPositions.slice(0, stored * 3),
    normals: outNormals.slice(0, stored * 3),
    index: widest <= 0xffff ? new Uint16Array(outIndex) : outIndex,
    chunks,
  };
}
