import { MC_TABLE } from './mc-table.generated.js';
import { gridOf, type Grid, type GridParams, type RowTables, type SlabRange } from './slab-grid.js';

/**
 * The fill pass of the marching cubes over slabs (extract-slab.ts has the others and says how the
 * passes fit together): the vertices of the edge rows a slab owns and the triangles of its cubes,
 * written straight into the shared output at the offsets the count pass led to.
 */

/** Keeps vertices strictly inside grid edges, so that no two vertices ever share a position. */
const EDGE_EPS = 1e-3;

/**
 * Where along a grid edge the surface crosses it, as a fraction from end a (voxel index `a`) to end b:
 * -1 for an end in the padding layer (no value), which puts the crossing next to the real end.
 */
function crossingAt(data: Int16Array | Float32Array, iso: number, a: number, b: number): number {
  if (a < 0) return 1 - EDGE_EPS;
  if (b < 0) return EDGE_EPS;
  const va = data[a] as number;
  const t = (iso - va) / ((data[b] as number) - va);
  // A mask boundary need not be an iso crossing of the values: fall back to the edge midpoint.
  if (!(t > 0 && t < 1)) return 0.5;
  return t < EDGE_EPS ? EDGE_EPS : t > 1 - EDGE_EPS ? 1 - EDGE_EPS : t;
}

/** What fillSlab's row passes read, gathered once per slab. */
interface FillRows {
  g: Grid;
  data: Int16Array | Float32Array;
  iso: number;
  bits: Int32Array;
  off: RowTables<Float64Array>;
  positions: Float32Array;
  indices: Uint32Array;
  /** Vertex indices of the current cube's twelve edges (< 2^32: checked when the offsets are made). */
  ids: Uint32Array;
}

/**
 * Pass 2: vertices of the edge rows this slab owns and triangles of its cubes, into the shared output.
 * A row at a time, each pass in a function of its own: a slab is one long call, and V8 would otherwise
 * compile this code (the extraction's hottest) again and again for each loop it enters hot (on-stack
 * replacement), each time as a whole; measured with --trace-opt, that took about as much processor
 * time as the extraction itself (0.7 s per skull job), taken from the threads doing it. The row
 * functions are compiled when hot, as functions, a few times at most: 0.15-0.3 s in all.
 */
export function fillSlab(
  p: GridParams,
  r: SlabRange,
  bits: Int32Array,
  off: RowTables<Float64Array>,
  positions: Float32Array,
  indices: Uint32Array,
): void {
  const g = gridOf(p);
  const rows: FillRows = {
    g,
    data: p.data,
    iso: p.iso,
    bits,
    off,
    positions,
    indices,
    ids: new Uint32Array(12),
  };
  for (let K = r.k0; K < r.k1; K++) {
    if (K < g.lo || K > g.hiK + 1) continue;
    for (let J = g.lo; J <= g.hiJ + 1; J++) fillEdgeRow(rows, K, J);
    if (K > g.hiK) continue;
    for (let J = g.lo; J <= g.hiJ; J++) fillCubeRow(rows, K, J);
  }
}

/**
 * The vertices of edge row J of plane K, in the order their indices count them. A grid edge runs from
 * padded voxel (I, J, K) one step along its axis; an end in the padding layer has no value
 * (crossingAt's -1), which puts the vertex next to the real end.
 */
function fillEdgeRow(rows: FillRows, K: number, J: number): void {
  const { g, data, iso, bits, off, positions } = rows;
  const { nx, ny, nz, PY, W, hiJ, hiK, xMask, colMask } = g;
  const nxy = nx * ny;
  const plane = K * PY;
  const zReal = K >= 1 && K <= nz;
  const zNext = K + 1 <= nz;
  const a = (plane + J) * W;
  let ix = off.x[plane + J] as number;
  let iy = off.y[plane + J] as number;
  let iz = off.z[plane + J] as number;
  const rowReal = zReal && J >= 1 && J <= ny;
  const yNext = zReal && J + 1 <= ny;
  const zRow = J >= 1 && J <= ny && zNext;
  // Index of real voxel (I - 1, J - 1, K - 1) is rowBase + I.
  const rowBase = (J - 1) * nx + (K - 1) * nxy - 1;
  const y = J - 1;
  const z = K - 1;
  for (let w = 0; w < W; w++) {
    const v = bits[a + w] as number;
    const next = w + 1 < W ? (bits[a + w + 1] as number) : 0;
    let m = (v ^ ((v >>> 1) | (next << 31))) & (xMask[w] as number);
    while (m !== 0) {
      const s = 31 - Math.clz32(m & -m);
      m &= m - 1;
      const I = (w << 5) | s;
      const at = rowReal && I >= 1 && I <= nx ? rowBase + I : -1;
      const o = ix++ * 3;
      positions[o] = I - 1 + crossingAt(data, iso, at, rowReal && I + 1 <= nx ? rowBase + I + 1 : -1);
      positions[o + 1] = y;
      positions[o + 2] = z;
    }
    // The y and z edges: the same loop twice, with the next row's or the next plane's word, counter
    // and axis. Kept written out like the x edges: this runs per word of every edge row, and one
    // helper for both would take eight arguments per call in the extraction's hottest pass.
    if (J <= hiJ) {
      m = (v ^ (bits[a + W + w] as number)) & (colMask[w] as number);
      while (m !== 0) {
        const s = 31 - Math.clz32(m & -m);
        m &= m - 1;
        const I = (w << 5) | s;
        const real = I >= 1 && I <= nx;
        const at = rowReal && real ? rowBase + I : -1;
        const o = iy++ * 3;
        positions[o] = I - 1;
        positions[o + 1] = y + crossingAt(data, iso, at, yNext && real ? rowBase + I + nx : -1);
        positions[o + 2] = z;
      }
    }
    if (K <= hiK) {
      m = (v ^ (bits[a + PY * W + w] as number)) & (colMask[w] as number);
      while (m !== 0) {
        const s = 31 - Math.clz32(m & -m);
        m &= m - 1;
        const I = (w << 5) | s;
        const real = I >= 1 && I <= nx;
        const at = rowReal && real ? rowBase + I : -1;
        const o = iz++ * 3;
        positions[o] = I - 1;
        positions[o + 1] = y;
        positions[o + 2] = z + crossingAt(data, iso, at, zRow && real ? rowBase + I + nxy : -1);
      }
    }
  }
}

/** The triangles of cube row J of layer K (rows J, J + 1 of planes K, K + 1). */
function fillCubeRow(rows: FillRows, K: number, J: number): void {
  const { g, bits, off, indices, ids } = rows;
  const { PY, W, xMask } = g;
  const { triStart, triEdges, edgeMask } = MC_TABLE;
  const plane = K * PY;
  const k1 = plane + PY;
  // Running vertex indices of the eight edge rows this cube row touches: x edges of rows J, J + 1
  // in planes K, K + 1; y edges of planes K, K + 1; z edges of rows J, J + 1.
  let x0 = off.x[plane + J] as number;
  let x1 = off.x[plane + J + 1] as number;
  let x2 = off.x[k1 + J] as number;
  let x3 = off.x[k1 + J + 1] as number;
  let yA = off.y[plane + J] as number;
  let yB = off.y[k1 + J] as number;
  let zJ = off.z[plane + J] as number;
  let zJ1 = off.z[plane + J + 1] as number;
  let w3 = (off.t[plane + J] as number) * 3;
  let prev = -2;
  // The loop of forActiveCubes (extract-slab.ts), inlined on purpose: this is the hottest loop of the
  // extraction and a closure call per cube would cost more than the work it does. Keep the two copies
  // in step.
  const ra = (plane + J) * W;
  const rb = ra + W;
  const rc = ra + PY * W;
  const rd = rc + W;
  for (let w = 0; w < W; w++) {
    const a = bits[ra + w] as number;
    const b = bits[rb + w] as number;
    const c = bits[rc + w] as number;
    const d = bits[rd + w] as number;
    const last = w + 1 === W;
    const an = (a >>> 1) | (last ? 0 : (bits[ra + w + 1] as number) << 31);
    const bn = (b >>> 1) | (last ? 0 : (bits[rb + w + 1] as number) << 31);
    const cn = (c >>> 1) | (last ? 0 : (bits[rc + w + 1] as number) << 31);
    const dn = (d >>> 1) | (last ? 0 : (bits[rd + w + 1] as number) << 31);
    let m = ((a ^ an) | (a ^ b) | (a ^ c) | (a ^ d) | (a ^ bn) | (a ^ cn) | (a ^ dn)) & (xMask[w] as number);
    while (m !== 0) {
      const s = 31 - Math.clz32(m & -m);
      m &= m - 1;
      const I = (w << 5) | s;
      const cs =
        ((a >>> s) & 1) |
        (((an >>> s) & 1) << 1) |
        (((b >>> s) & 1) << 2) |
        (((bn >>> s) & 1) << 3) |
        (((c >>> s) & 1) << 4) |
        (((cn >>> s) & 1) << 5) |
        (((d >>> s) & 1) << 6) |
        (((dn >>> s) & 1) << 7);
      const em = edgeMask[cs] as number;
      if (prev !== I - 1) {
        // No active cube just before: crossed edges on this cube's left side (possible only at
        // the start of the processed range) have not been counted yet.
        if (em & 0x010) yA++;
        if (em & 0x040) yB++;
        if (em & 0x100) zJ++;
        if (em & 0x400) zJ1++;
      }
      prev = I;
      ids[4] = yA - 1;
      ids[6] = yB - 1;
      ids[8] = zJ - 1;
      ids[10] = zJ1 - 1;
      if (em & 0x001) ids[0] = x0++;
      if (em & 0x002) ids[1] = x1++;
      if (em & 0x004) ids[2] = x2++;
      if (em & 0x008) ids[3] = x3++;
      if (em & 0x020) ids[5] = yA++;
      if (em & 0x080) ids[7] = yB++;
      if (em & 0x200) ids[9] = zJ++;
      if (em & 0x800) ids[11] = zJ1++;
      const end = triStart[cs + 1] as number;
      for (let ti = triStart[cs] as number; ti < end; ti++)
        indices[w3++] = ids[triEdges[ti] as number] as number;
    }
  }
}
