/**
 * Splits a welded mesh into chunks the main thread can hand to the GPU a few per animation frame
 * (see draw-batches.ts). Uploading and drawing a 400k-triangle mesh in one frame blocks the main
 * thread for hundreds of ms; a chunk of 32k triangles is a short task. Each chunk draws a contiguous range of the index and owns a contiguous range
 * of the vertex arrays, so its attributes are views (subarrays) of the mesh's arrays: nothing is
 * copied on the main thread. All of it runs in the loader's worker.
 */
import { boundingSphere, boundsOf } from './weld.js';
import type { IndexedMesh } from './weld.js';

/** About 0.8 MB of vertex and index data; a software renderer rasterises it in one short task. */
export const CHUNK_TRIANGLES = 32_768;

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

/** Interleaves the low 5 bits of x, y, z: cells close in space get close codes. */
function morton(x: number, y: number, z: number): number {
  let code = 0;
  for (let bit = 0; bit < GRID_BITS; bit++) {
    code |=
      (((x >> bit) & 1) << (3 * bit)) |
      (((y >> bit) & 1) << (3 * bit + 1)) |
      (((z >> bit) & 1) << (3 * bit + 2));
  }
  return code;
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
  const scale = [0, 1, 2].map((k) => {
    const extent = bounds[k + 3]! - bounds[k]!;
    return extent > 0 ? side / extent : 0;
  });
  const keys = new Uint16Array(triangles);
  const counts = new Uint32Array(cells + 1);
  for (let t = 0; t < triangles; t++) {
    const cell = [0, 0, 0];
    for (let k = 0; k < 3; k++) {
      const centroid =
        (positions[index[3 * t]! * 3 + k]! +
          positions[index[3 * t + 1]! * 3 + k]! +
          positions[index[3 * t + 2]! * 3 + k]!) /
        3;
      cell[k] = Math.min(side - 1, Math.max(0, Math.floor((centroid - bounds[k]!) * scale[k]!)));
    }
    const key = morton(cell[0]!, cell[1]!, cell[2]!);
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

/** Vertices stored over all chunks: a vertex on the border of two chunks is stored in both. */
export function storedVertices(chunks: readonly Pick<MeshChunk, 'vertexCount'>[]): number {
  return chunks.reduce((n, c) => n + c.vertexCount, 0);
}

/**
 * Turns a welded mesh into chunks: triangles in spatial order, cut into runs, each run's
 * vertices gathered into its own range with chunk-local index numbers, and each chunk's bounds
 * computed here, off the main thread.
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
  // Chunk-local numbers fit the source's index type: a chunk never uses more vertices than exist.
  const outIndex =
    index instanceof Uint16Array ? new Uint16Array(index.length) : new Uint32Array(index.length);
  let stored = 0;
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
            const p = new Float32Array(capacity * 3);
            p.set(outPositions);
            outPositions = p;
            const n = new Float32Array(capacity * 3);
            n.set(outNormals);
            outNormals = n;
          }
          outPositions.set(positions.subarray(v * 3, v * 3 + 3), stored * 3);
          outNormals.set(normals.subarray(v * 3, v * 3 + 3), stored * 3);
          stored++;
        }
        outIndex[t * 3 + corner] = local[v]!;
      }
    }
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
    index: outIndex,
    chunks,
  };
}
