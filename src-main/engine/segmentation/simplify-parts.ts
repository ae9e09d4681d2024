import { MeshoptSimplifier } from 'meshoptimizer/simplifier';
import type { MeshLayers } from './slab-grid.js';

/**
 * Simplification of a big surface in parts, one per worker thread. meshoptimizer's cost grows faster
 * than the triangle count (a 1.5-million-triangle skull takes about 3 s in one piece, its two halves
 * 0.7 s each), and one call uses one core. So the triangles are split into slabs along the longest
 * axis, and each slab is simplified on its own, in parallel, with the vertices it shares with another
 * slab locked. Each triangle of the result comes from exactly one simplification of the original
 * surface, so the error bound holds as for one piece; the price is the locked seam, along which the
 * mesh stays as fine as it was extracted (a few per cent more triangles per seam).
 */

/** An indexed triangle mesh (iso-surface.ts's Mesh, restated: that module imports this one's types). */
interface Mesh {
  positions: Float32Array;
  indices: Uint32Array;
}

/** Below this many triangles the mesh is simplified in one piece: splitting would not pay. */
export const PARTS_FROM_TRIANGLES = 200_000;

/** One slab to simplify, run in a mesh worker. Positions and lock are shared, not copied. */
export interface SimplifyPartTask {
  kind: 'simplify';
  /** The whole mesh's positions (mm); only those the indices name are looked at. */
  positions: Float32Array;
  /** The slab's triangles, indexing the whole mesh's positions. */
  indices: Uint32Array;
  /** One byte per vertex of the whole mesh: 1 = must not move (seams, and defects of earlier rounds). */
  lock: Uint8Array;
  maxErrorMm: number;
}

export interface SimplifyPartResult {
  /** The slab's simplified triangles, still indexing the whole mesh's positions. */
  indices: Uint32Array;
  errorMm: number;
}

/** Runs one part (in a worker thread; also callable in the calling thread). */
export async function simplifyPart(t: SimplifyPartTask): Promise<SimplifyPartResult> {
  await MeshoptSimplifier.ready;
  // Sparse: the cost follows the slab's triangles, not the whole mesh's vertex count.
  const [indices, errorMm] = MeshoptSimplifier.simplifyWithAttributes(
    t.indices,
    t.positions,
    3,
    new Float32Array(0),
    0,
    [],
    t.lock,
    0,
    t.maxErrorMm,
    ['ErrorAbsolute', 'Sparse'],
  );
  return { indices, errorMm };
}

/**
 * Runs the simplifier once on a small made-up surface (a wavy torus of 20,000 triangles), so that
 * the first real slab runs in optimised code. V8 first compiles WebAssembly with its baseline
 * compiler and swaps in optimised code only for later calls; a slab is one long call, so a cold one
 * costs about half as much again (measured: 1.2 s of CPU cold, 0.8 s warm, for half a skull). The
 * mesh workers do this as they start, while the job thread reads the scan.
 *
 * The torus's edges are about 0.6 mm and its waves 0.3 mm deep, like a surface extracted from a 1 mm
 * grid, and it is simplified at the default 0.1 mm: most of its vertices collapse, so the collapse
 * code is what gets optimised. At 0.01 mm almost nothing collapsed and the first real slab still ran
 * cold (measured on half the phantom skull: 690 ms after that warm-up, 566 ms after this one, 530 ms
 * hot).
 */
export async function warmUpSimplifier(): Promise<void> {
  await MeshoptSimplifier.ready;
  const n = 100;
  const positions = new Float32Array(n * n * 3);
  const indices = new Uint32Array(n * n * 6);
  // A ring at a time: one long loop here would be compiled by V8 for itself (on-stack replacement),
  // tens of milliseconds of a core for code that runs once.
  for (let i = 0; i < n; i++) torusRing(positions, indices, n, i);
  await simplifyPart({ kind: 'simplify', positions, indices, lock: new Uint8Array(n * n), maxErrorMm: 0.1 });
}

/** Ring i of the warm-up's wavy n x n torus: its vertices, and the quads to the next ring. */
function torusRing(positions: Float32Array, indices: Uint32Array, n: number, i: number): void {
  const u = (2 * Math.PI * i) / n;
  for (let j = 0; j < n; j++) {
    const v = (2 * Math.PI * j) / n;
    const r = 10 + 3 * Math.cos(v) + 0.3 * Math.sin(7 * u) * Math.cos(5 * v);
    const o = (i * n + j) * 3;
    positions[o] = r * Math.cos(u);
    positions[o + 1] = r * Math.sin(u);
    positions[o + 2] = 3 * Math.sin(v);
    const a = i * n + j;
    const b = ((i + 1) % n) * n + j;
    const c = ((i + 1) % n) * n + ((j + 1) % n);
    const d = i * n + ((j + 1) % n);
    const t = a * 6;
    indices[t] = a;
    indices[t + 1] = b;
    indices[t + 2] = c;
    indices[t + 3] = a;
    indices[t + 4] = c;
    indices[t + 5] = d;
  }
}

export type PartRunner = (task: SimplifyPartTask) => Promise<SimplifyPartResult>;

interface PartsResult {
  indices: Uint32Array;
  errorMm: number;
  /** Vertices locked because two slabs share them. */
  seamVertices: number;
}

/**
 * Simplifies `mesh` in `parts` slabs, through `run` (a worker pool, or simplifyPart itself), with the
 * vertices flagged in `lock` (may be null) kept in place as well as the seams. A mesh as the
 * extraction made it (`layers` known) is cut between cube layers, where its numbering already keeps
 * each slab's triangles together and the seam is one run of vertices: nothing is sorted or copied.
 * Any other mesh is cut along its longest axis (assignSlabs).
 */
export async function simplifyInParts(
  mesh: Mesh,
  lock: Uint8Array | null,
  maxErrorMm: number,
  parts: number,
  run: PartRunner,
  layers?: MeshLayers,
  /** Told as each slab comes back from its worker (done of total): a slab can take tens of seconds. */
  onPart?: (done: number, total: number) => void,
): Promise<PartsResult> {
  const vcount = mesh.positions.length / 3;
  // Shared so that every worker reads the same memory: nothing big is copied to them.
  const positions = toShared(mesh.positions);
  const seamLock = new Uint8Array(new SharedArrayBuffer(vcount));
  if (lock) seamLock.set(lock);
  const { slabs, seamVertices } = layers
    ? layerSlabs(mesh, layers, parts, seamLock)
    : axisSlabs(mesh, parts, seamLock);
  const filled = slabs.filter((s) => s.length > 0);
  let done = 0;
  onPart?.(0, filled.length);
  const results = await Promise.all(
    filled.map((s) =>
      run({ kind: 'simplify', positions, indices: s, lock: seamLock, maxErrorMm }).then((r) => {
        onPart?.(++done, filled.length);
        return r;
      }),
    ),
  );
  const merged = new Uint32Array(results.reduce((n, r) => n + r.indices.length, 0));
  let at = 0;
  for (const r of results) {
    merged.set(r.indices, at);
    at += r.indices.length;
  }
  return { indices: merged, errorMm: Math.max(0, ...results.map((r) => r.errorMm)), seamVertices };
}

interface Slabs {
  /** Each slab's triangles, indexing the whole mesh's positions. */
  slabs: Uint32Array[];
  /** Vertices newly locked because two slabs share them. */
  seamVertices: number;
}

/**
 * Slabs of whole cube layers, equal in triangles within a few per cent (the slabs are simplified side
 * by side, so the largest sets the time), each cut moved within that to the plane the surface crosses
 * least: its crossings are the seam.
 */
function layerSlabs(mesh: Mesh, layers: MeshLayers, parts: number, seamLock: Uint8Array): Slabs {
  const { triangleStart, inPlaneStart, inPlaneEnd } = layers;
  const planes = inPlaneStart.length;
  const tcount = mesh.indices.length / 3;
  const indices = toShared(mesh.indices);
  const cuts: number[] = [];
  for (let p = 1; p < parts; p++) {
    const from = (tcount * p) / parts - tcount / (40 * parts);
    const to = (tcount * p) / parts + tcount / (40 * parts);
    const target = (tcount * p) / parts;
    let best = -1;
    let nearest = -1;
    for (let K = (cuts[cuts.length - 1] ?? 0) + 1; K < planes; K++) {
      const t = triangleStart[K] as number;
      const off = Math.abs(t - target);
      if (nearest < 0 || off < Math.abs((triangleStart[nearest] as number) - target)) nearest = K;
      if (t < from || t > to) continue;
      const crossings = (inPlaneEnd[K] as number) - (inPlaneStart[K] as number);
      if (best < 0 || crossings < (inPlaneEnd[best] as number) - (inPlaneStart[best] as number)) best = K;
    }
    // Layers thicker than the window (a small surface): the plane nearest the even split.
    const cut = best > 0 ? best : nearest;
    if (cut > 0) cuts.push(cut);
  }
  let seamVertices = 0;
  const slabs: Uint32Array[] = [];
  let first = 0;
  for (const K of cuts) {
    for (let v = inPlaneStart[K] as number; v < (inPlaneEnd[K] as number); v++) {
      if (seamLock[v]) continue;
      seamLock[v] = 1;
      seamVertices++;
    }
    const t = triangleStart[K] as number;
    slabs.push(indices.subarray(first * 3, t * 3));
    first = t;
  }
  slabs.push(indices.subarray(first * 3));
  return { slabs, seamVertices };
}

/** Slabs along the longest axis (assignSlabs), their triangles copied out and their seams found. */
function axisSlabs(mesh: Mesh, parts: number, seamLock: Uint8Array): Slabs {
  const { indices } = mesh;
  const tcount = indices.length / 3;
  const vcount = mesh.positions.length / 3;
  const slabOf = assignSlabs(mesh, parts);
  const owner = new Int16Array(vcount).fill(-1);
  let seamVertices = 0;
  for (let i = 0; i < indices.length; i++) {
    const v = indices[i] as number;
    const s = slabOf[(i / 3) | 0] as number;
    const o = owner[v] as number;
    if (o === -1) owner[v] = s;
    else if (o !== s && !seamLock[v]) {
      seamLock[v] = 1;
      seamVertices++;
    }
  }
  const counts = new Uint32Array(parts);
  for (let t = 0; t < tcount; t++) counts[slabOf[t] as number]!++;
  const slabs = Array.from(counts, (n) => new Uint32Array(n * 3));
  const fill = new Uint32Array(parts);
  for (let t = 0; t < tcount; t++) {
    const s = slabOf[t] as number;
    const out = slabs[s] as Uint32Array;
    const o = fill[s] as number;
    out[o] = indices[t * 3] as number;
    out[o + 1] = indices[t * 3 + 1] as number;
    out[o + 2] = indices[t * 3 + 2] as number;
    fill[s] = o + 3;
  }
  return { slabs, seamVertices };
}

/**
 * The slab of every triangle: cut along the mesh's longest axis into parts of about equal triangle
 * counts, each cut moved (within a tenth of the triangles either way) to where the fewest triangles
 * straddle it, since every straddling triangle leaves locked vertices behind.
 */
export function assignSlabs(mesh: Mesh, parts: number): Uint8Array {
  const { positions, indices } = mesh;
  const tcount = indices.length / 3;
  const slabOf = new Uint8Array(tcount);
  if (parts <= 1 || tcount === 0) return slabOf;
  let axis = 0;
  let lo = Infinity;
  let hi = -Infinity;
  for (let a = 0, best = -1; a < 3; a++) {
    let mn = Infinity;
    let mx = -Infinity;
    for (let v = a; v < positions.length; v += 3) {
      const p = positions[v] as number;
      if (p < mn) mn = p;
      if (p > mx) mx = p;
    }
    if (mx - mn > best) [best, axis, lo, hi] = [mx - mn, a, mn, mx];
  }
  const BINS = 4096;
  const scale = hi > lo ? (BINS - 1) / (hi - lo) : 0;
  const bin = (v: number): number => Math.floor(((positions[v * 3 + axis] as number) - lo) * scale);
  // Triangles by the bin of their lowest vertex, and how many straddle each bin boundary.
  const low = new Uint16Array(tcount);
  const perBin = new Uint32Array(BINS);
  const straddle = new Int32Array(BINS + 1);
  for (let t = 0; t < tcount; t++) {
    const a = bin(indices[t * 3] as number);
    const b = bin(indices[t * 3 + 1] as number);
    const c = bin(indices[t * 3 + 2] as number);
    const mn = Math.min(a, b, c);
    const mx = Math.max(a, b, c);
    low[t] = mn;
    perBin[mn]!++;
    // Straddles every boundary k with mn < k <= mx (boundary k lies between bin k-1 and bin k).
    straddle[mn + 1]!++;
    straddle[mx + 1]!--;
  }
  for (let k = 1; k <= BINS; k++) straddle[k]! += straddle[k - 1] as number;
  const below = new Uint32Array(BINS + 1);
  for (let k = 0; k < BINS; k++) below[k + 1] = (below[k] as number) + (perBin[k] as number);
  const cuts: number[] = [];
  for (let p = 1; p < parts; p++) {
    const from = (tcount * p) / parts - tcount / (10 * parts);
    const to = (tcount * p) / parts + tcount / (10 * parts);
    let best = -1;
    for (let k = 1; k < BINS; k++) {
      const n = below[k] as number;
      if (n < from || n > to || k <= (cuts[cuts.length - 1] ?? 0)) continue;
      if (best < 0 || (straddle[k] as number) < (straddle[best] as number)) best = k;
    }
    cuts.push(best < 0 ? (cuts[cuts.length - 1] ?? 0) + 1 : best);
  }
  for (let t = 0; t < tcount; t++) {
    let s = 0;
    while (s < cuts.length && (low[t] as number) >= (cuts[s] as number)) s++;
    slabOf[t] = s;
  }
  return slabOf;
}

function toShared<A extends Float32Array | Uint32Array>(a: A): A {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const Ctor = a.constructor as new (buf: SharedArrayBuffer) => A;
  const s = new Ctor(new SharedArrayBuffer(a.byteLength));
  s.set(a as never);
  return s;
}
