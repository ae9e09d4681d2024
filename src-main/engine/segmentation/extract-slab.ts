import { MC_TABLE } from './mc-table.generated.js';
import type { InsideRuns } from './components.js';
import { gridOf, type Grid, type GridParams, type RowTables, type SlabRange } from './slab-grid.js';

/**
 * Marching cubes over slabs of slices, the kernel that worker threads run.
 *
 * Why marching cubes: it interpolates along grid edges, so the surface sits at sub-voxel positions
 * (surface nets would need an extra relaxation step for that), and with the table of mc-table.ts its
 * output is closed and edge-manifold by construction, which the writers and the simplifier rely on.
 *
 * How it is made fast in JavaScript, borrowing from VTK's flying edges:
 * - The inside flags are packed 32 voxels to a word, once. Crossed edges along a row are then the set
 *   bits of `row ^ (row >> 1)`, between rows `row0 ^ row1`, and cubes with something to do are found
 *   a word at a time, so the work goes with the surface, not with the volume.
 * - Passes: 'bits' packs the flags; 'count' counts crossed edges and triangles per row; the caller
 *   turns counts into global offsets; 'fill' writes vertices and triangles straight into output
 *   allocated once at its exact size in shared memory. Slabs need no merging.
 * - A vertex's index is its edge row's offset plus the crossed edges before it in that row, which
 *   every cube using the edge counts while sweeping the row: shared vertices without a lookup table
 *   or per-vertex objects.
 *
 * The volume is treated as if a layer of outside voxels surrounded it (padded coordinates: real voxel
 * i is padded I = i + 1). With `closeBorders` the cubes that touch that layer are processed too, so a
 * region that reaches the edge of the scan is closed by a cap just outside the last voxel centres
 * (within half a voxel, so inside the scan's physical extent); without it only cubes between real
 * voxels are processed, as scikit-image and VTK do.
 *
 * Positions are written in voxel index space (x = column, y = row, z = slice); the caller maps them to
 * patient coordinates.
 */
export type MeshTask =
  | { kind: 'bits'; grid: GridParams; range: SlabRange; bits: Int32Array }
  | { kind: 'count'; grid: GridParams; range: SlabRange; bits: Int32Array; counts: RowTables<Int32Array> }
  | {
      kind: 'fill';
      grid: GridParams;
      range: SlabRange;
      bits: Int32Array;
      offsets: RowTables<Float64Array>;
      positions: Float32Array;
      indices: Uint32Array;
    };

const TRI_COUNT = (() => {
  const n = new Uint8Array(256);
  for (let c = 0; c < 256; c++)
    n[c] = ((MC_TABLE.triStart[c + 1] as number) - (MC_TABLE.triStart[c] as number)) / 3;
  return n;
})();

function popcount(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Pass 0: packs the inside flags of planes [k0, k1) (planes 0 and PZ - 1 stay outside: zero). */
export function packSlab(p: GridParams, r: SlabRange, bits: Int32Array): void {
  const g = gridOf(p);
  const { nx, ny, nz, PY, W } = g;
  const { data, iso } = p;
  if (p.runs) {
    packRuns(p.runs, g, r, bits);
    return;
  }
  const mask = p.mask ?? null;
  const above = p.polarity === 'above';
  for (let K = Math.max(1, r.k0); K < Math.min(nz + 1, r.k1); K++) {
    const src0 = (K - 1) * nx * ny;
    for (let j = 0; j < ny; j++) {
      const src = src0 + j * nx;
      const row = (K * PY + j + 1) * W;
      // Real column i is padded column I = i + 1; a word holds columns 32w .. 32w + 31.
      for (let w = 0; w < W; w++) {
        const I0 = Math.max(1, w << 5);
        const I1 = Math.min(nx, (w << 5) + 31);
        const base = src - 1;
        let word = 0;
        if (mask) {
          for (let I = I0; I <= I1; I++) if (mask[base + I] !== 0) word |= 1 << (I & 31);
        } else if (above) {
          for (let I = I0; I <= I1; I++) if ((data[base + I] as number) > iso) word |= 1 << (I & 31);
        } else {
          for (let I = I0; I <= I1; I++) if ((data[base + I] as number) < iso) word |= 1 << (I & 31);
        }
        bits[row + w] = word;
      }
    }
  }
}

/** packSlab from runs of inside voxels: each run sets its bits a word at a time. */
function packRuns(runs: InsideRuns, g: Grid, r: SlabRange, bits: Int32Array): void {
  const { ny, nz, PY, W } = g;
  const { rowStart, st, en } = runs;
  for (let K = Math.max(1, r.k0); K < Math.min(nz + 1, r.k1); K++) {
    for (let j = 0; j < ny; j++) {
      const row = (K * PY + j + 1) * W;
      bits.fill(0, row, row + W);
      const src = (K - 1) * ny + j;
      for (let i = rowStart[src] as number; i < (rowStart[src + 1] as number); i++) {
        // Real columns [st, en) are padded columns [st + 1, en].
        const a = (st[i] as number) + 1;
        const b = en[i] as number;
        for (let w = a >>> 5; w <= b >>> 5; w++) {
          const lo = w === a >>> 5 ? a & 31 : 0;
          const hi = w === b >>> 5 ? b & 31 : 31;
          // Bits lo..hi of the word (all 32 when lo is 0 and hi is 31).
          const span = hi - lo === 31 ? -1 : ((1 << (hi - lo + 1)) - 1) << lo;
          bits[row + w] = (bits[row + w] as number) | span;
        }
      }
    }
  }
}

/** Pass 1: crossed edges per edge row and triangles per cube row, for this slab's planes and layers. */
export function countSlab(p: GridParams, r: SlabRange, bits: Int32Array, out: RowTables<Int32Array>): void {
  const g = gridOf(p);
  const { PY, lo, hiJ, hiK } = g;
  // A row at a time, in functions of their own, for the compiler's sake (see fillSlab).
  for (let K = r.k0; K < r.k1; K++) {
    if (K < lo || K > hiK + 1) continue;
    for (let J = lo; J <= hiJ + 1; J++) countEdgeRow(g, bits, out, K, J);
    if (K > hiK) continue;
    for (let J = lo; J <= hiJ; J++) out.t[K * PY + J] = cubeRowTriangles(g, bits, K, J);
  }
}

/** Crossed x, y and z edges from edge row J of plane K. */
function countEdgeRow(g: Grid, bits: Int32Array, out: RowTables<Int32Array>, K: number, J: number): void {
  const { PY, W, hiJ, hiK, xMask, colMask } = g;
  const plane = K * PY;
  const a = (plane + J) * W;
  let nxe = 0;
  let nye = 0;
  let nze = 0;
  for (let w = 0; w < W; w++) {
    const v = bits[a + w] as number;
    const next = w + 1 < W ? (bits[a + w + 1] as number) : 0;
    nxe += popcount((v ^ ((v >>> 1) | (next << 31))) & (xMask[w] as number));
    if (J <= hiJ) nye += popcount((v ^ (bits[a + W + w] as number)) & (colMask[w] as number));
    if (K <= hiK) nze += popcount((v ^ (bits[a + PY * W + w] as number)) & (colMask[w] as number));
  }
  out.x[plane + J] = nxe;
  if (J <= hiJ) out.y[plane + J] = nye;
  if (K <= hiK) out.z[plane + J] = nze;
}

function cubeRowTriangles(g: Grid, bits: Int32Array, K: number, J: number): number {
  let n = 0;
  forActiveCubes(g, bits, J, K, (cs) => {
    n += TRI_COUNT[cs] as number;
  });
  return n;
}

/**
 * Calls visit(case, I) for every cube of cube row J in layer K (rows J, J + 1 of planes K, K + 1)
 * whose corners are not all inside or all outside, in increasing I. Case bit c is corner
 * (c & 1, c >> 1 & 1, c >> 2 & 1).
 * fillCubeRow (fill-slab.ts) writes this loop out again on purpose (it is the hottest loop of the
 * extraction, and a closure call per cube there would cost more than the work): change both copies
 * together.
 */
function forActiveCubes(
  g: Grid,
  bits: Int32Array,
  J: number,
  K: number,
  visit: (cs: number, I: number) => void,
): void {
  const { W, PY } = g;
  const ra = (K * PY + J) * W;
  const rb = ra + W;
  const rc = ra + PY * W;
  const rd = rc + W;
  const xMask = g.xMask;
  for (let w = 0; w < W; w++) {
    const a = bits[ra + w] as number;
    const b = bits[rb + w] as number;
    const c = bits[rc + w] as number;
    const d = bits[rd + w] as number;
    const last = w + 1 === W;
    // Words shifted by one column: bit I holds column I + 1.
    const an = (a >>> 1) | (last ? 0 : (bits[ra + w + 1] as number) << 31);
    const bn = (b >>> 1) | (last ? 0 : (bits[rb + w + 1] as number) << 31);
    const cn = (c >>> 1) | (last ? 0 : (bits[rc + w + 1] as number) << 31);
    const dn = (d >>> 1) | (last ? 0 : (bits[rd + w + 1] as number) << 31);
    // A cube is trivial when its eight corners agree.
    let m = ((a ^ an) | (a ^ b) | (a ^ c) | (a ^ d) | (a ^ bn) | (a ^ cn) | (a ^ dn)) & (xMask[w] as number);
    while (m !== 0) {
      const s = 31 - Math.clz32(m & -m);
      m &= m - 1;
      const cs =
        ((a >>> s) & 1) |
        (((an >>> s) & 1) << 1) |
        (((b >>> s) & 1) << 2) |
        (((bn >>> s) & 1) << 3) |
        (((c >>> s) & 1) << 4) |
        (((cn >>> s) & 1) << 5) |
        (((d >>> s) & 1) << 6) |
        (((dn >>> s) & 1) << 7);
      visit(cs, (w << 5) | s);
    }
  }
}
