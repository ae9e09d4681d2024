import type { InsideRuns } from './components.js';

/**
 * The padded grid that the marching cubes passes (extract-slab.ts) work on: what a pass is given
 * (GridParams, SlabRange), the per-row tables, and the geometry derived from the volume's size.
 */
export interface GridParams {
  data: Int16Array | Float32Array;
  dims: [number, number, number];
  iso: number;
  /** Inside means value > iso ('above') or value < iso ('below'). Ignored for the inside test when mask is given. */
  polarity: 'above' | 'below';
  /** When given, inside means mask[voxel] !== 0; values still place the vertices. */
  mask?: Uint8Array | null;
  /** The same as a mask, as runs along rows (components.ts); read instead of the mask when given. */
  runs?: InsideRuns | null;
  closeBorders: boolean;
}

export interface SlabRange {
  /** Padded slices [k0, k1): this slab packs those planes, and owns their edges and the cube layers above them. */
  k0: number;
  k1: number;
}

/**
 * Per-row tables, each PZ * PY long and indexed K * PY + J: x (crossed x edges in row J of plane K),
 * y (crossed y edges between rows J and J + 1 of plane K), z (crossed z edges between planes K and
 * K + 1 in row J), t (triangles of the cubes between rows J, J + 1 and planes K, K + 1).
 * Counts first, then (as Float64) global offsets.
 */
export type RowTables<T extends Int32Array | Float64Array> = { x: T; y: T; z: T; t: T };

/** Geometry of the padded grid, its packed rows and the ranges of cubes processed. */
export interface Grid {
  nx: number;
  ny: number;
  nz: number;
  PX: number;
  PY: number;
  PZ: number;
  /** Words per packed row. */
  W: number;
  /** Inclusive cube ranges in padded coordinates: I in [lo, hiI], J in [lo, hiJ], K in [lo, hiK]. */
  lo: number;
  hiI: number;
  hiJ: number;
  hiK: number;
  /** Per word: bits of the x edges processed (I in [lo, hiI]) and of the columns processed (I in [lo, hiI + 1]). */
  xMask: Int32Array;
  colMask: Int32Array;
}

export function gridOf(p: Pick<GridParams, 'dims' | 'closeBorders'>): Grid {
  const [nx, ny, nz] = p.dims;
  const PX = nx + 2;
  const PY = ny + 2;
  const PZ = nz + 2;
  const W = (PX + 31) >>> 5;
  const c = p.closeBorders ? 0 : 1;
  const hiI = PX - 2 - c;
  const rangeMask = (a: number, b: number): Int32Array => {
    const m = new Int32Array(W);
    for (let I = a; I <= b; I++) m[I >>> 5] = (m[I >>> 5] as number) | (1 << (I & 31));
    return m;
  };
  return {
    nx,
    ny,
    nz,
    PX,
    PY,
    PZ,
    W,
    lo: c,
    hiI,
    hiJ: PY - 2 - c,
    hiK: PZ - 2 - c,
    xMask: rangeMask(c, hiI),
    colMask: rangeMask(c, hiI + 1),
  };
}

/** Size of the packed inside flags of the whole padded volume, in 32-bit words. */
export function bitWords(g: Grid): number {
  return g.PZ * g.PY * g.W;
}

/**
 * Where each padded plane K of an extracted surface begins, by the numbering the extraction gives:
 * triangles go cube layer by cube layer, vertices plane by plane (a plane's x and y edges, then the z
 * edges to the next plane). So the triangles of layers [a, b) are one run of the index buffer, and the
 * only vertices that layers below K share with layers from K up are plane K's x and y edge vertices,
 * also one run. Smoothing and the patient transform keep both numberings.
 */
export interface MeshLayers {
  /** PZ + 1 entries: the first triangle of cube layer K; the last is the triangle count. */
  triangleStart: Float64Array;
  /** PZ entries each: plane K's x and y edge vertices are [inPlaneStart[K], inPlaneEnd[K]). */
  inPlaneStart: Float64Array;
  inPlaneEnd: Float64Array;
}
