import { MC_TABLE } from './mc-table.js';
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

/** Keeps vertices strictly inside grid edges, so that no two vertices ever share a position. */
const EDGE_EPS = 1e-3;

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
  const { PY, W, lo, hiJ, hiK, xMask, colMask } = g;
  for (let K = r.k0; K < r.k1; K++) {
    if (K < lo || K > hiK + 1) continue;
    const plane = K * PY;
    for (let J = lo; J <= hiJ + 1; J++) {
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
    if (K > hiK) continue;
    for (let J = lo; J <= hiJ; J++) {
      let n = 0;
      forActiveCubes(g, bits, J, K, (cs) => {
        n += TRI_COUNT[cs] as number;
      });
      out.t[plane + J] = n;
    }
  }
}

/**
 * Calls visit(case, I) for every cube of cube row J in layer K (rows J, J + 1 of planes K, K + 1)
 * whose corners are not all inside or all outside, in increasing I. Case bit c is corner
 * (c & 1, c >> 1 & 1, c >> 2 & 1).
 * fillSlab writes this loop out again on purpose (it is the hottest loop of the extraction, and a
 * closure call per cube there would cost more than the work): change both copies together.
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

/** Pass 2: vertices of the edge rows this slab owns and triangles of its cubes, into the shared output. */
export function fillSlab(
  p: GridParams,
  r: SlabRange,
  bits: Int32Array,
  off: RowTables<Float64Array>,
  positions: Float32Array,
  indices: Uint32Array,
): void {
  const g = gridOf(p);
  const { nx, ny, nz, PY, W, lo, hiJ, hiK, xMask, colMask } = g;
  const { data, iso } = p;
  const nxy = nx * ny;
  const { triStart, triEdges, edgeMask } = MC_TABLE;

  // Vertex indices of the current cube's twelve edges (< 2^32: checked when the offsets are made).
  const ids = new Uint32Array(12);
  for (let K = r.k0; K < r.k1; K++) {
    if (K < lo || K > hiK + 1) continue;
    const plane = K * PY;
    // Vertices of this plane's edge rows, in the order their indices count them. A grid edge runs
    // from padded voxel (I, J, K) one step along its axis; an end in the padding layer has no value
    // (crossingAt's -1), which puts the vertex next to the real end.
    const zReal = K >= 1 && K <= nz;
    const zNext = K + 1 <= nz;
    for (let J = lo; J <= hiJ + 1; J++) {
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
    if (K > hiK) continue;
    const k1 = plane + PY;
    for (let J = lo; J <= hiJ; J++) {
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
      // The loop of forActiveCubes, inlined on purpose: this is the hottest loop of the extraction and
      // a closure call per cube would cost more than the work it does. Keep the two copies in step.
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
        let m =
          ((a ^ an) | (a ^ b) | (a ^ c) | (a ^ d) | (a ^ bn) | (a ^ cn) | (a ^ dn)) & (xMask[w] as number);
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
  }
}
