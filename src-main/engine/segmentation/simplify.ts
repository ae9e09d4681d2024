import { MeshoptSimplifier } from 'meshoptimizer/simplifier';
import type { Mesh } from './iso-surface.js';
import { badEdgeVertices } from './mesh-checks.js';
import { repairPinches } from './pinch-repair.js';
import { PARTS_FROM_TRIANGLES, simplifyInParts, simplifyPart, type PartRunner } from './simplify-parts.js';
import type { MeshLayers } from './slab-grid.js';

export interface SimplifiedMesh extends Mesh {
  /** Largest deviation from the input that the simplifier reports, in mm. */
  errorMm: number;
  /** Vertices that had to be locked to keep the mesh edge-manifold. */
  lockedVertices: number;
  /** Vertices split to pull apart sheets that the simplifier made touch. */
  splitVertices: number;
  /** True when no manifold simplification was found and the input came back unchanged. */
  unsimplified: boolean;
  /** Simplifier runs it took (1 when the first was already manifold). */
  rounds: number;
  /** Slabs simplified side by side (1: the mesh in one piece), and the vertices locked between them. */
  parts: number;
  seamVertices: number;
}

interface SimplifyOptions {
  /** Runs one slab, usually in a worker thread; without it, slabs run one after another here. */
  runPart?: PartRunner;
  /** Slabs for a big mesh (default 2, the cores of the machines this runs on). */
  parts?: number;
  /** A mesh with fewer triangles goes in one piece (default PARTS_FROM_TRIANGLES). */
  partsFromTriangles?: number;
  /** Where the extraction's layers lie: the slabs are cut between them (simplify-parts.ts). */
  layers?: MeshLayers;
  /** Told as each slab is done and as each round's result is checked (for the job's progress). */
  onStep?: (step: SimplifyStep) => void;
}

/** Where a simplification has got to: slabs done of a round, or that round's result being checked. */
export type SimplifyStep =
  { kind: 'parts'; round: number; done: number; parts: number } | { kind: 'check'; round: number };

/** Lock radius (in edges) around the defects of each failed round; after the last, the input is kept. */
const LOCK_RADII = [3, 8, 20];
/** Simplifier runs at most: the first, and one per lock radius. */
export const MAX_SIMPLIFY_ROUNDS = LOCK_RADII.length + 1;

/**
 * Fewer triangles within a maximum deviation in mm (the real service's `decimateMaxError`), with
 * meshoptimizer's edge-collapse simplifier. Its error is normally relative to the mesh extent; the
 * ErrorAbsolute flag makes it the same unit as the positions, which are in mm. The simplifier only
 * removes vertices and never moves the ones it keeps, so the surface stays within the scan's extent.
 *
 * meshoptimizer does not check the link condition of a collapse, so now and then two sheets of the
 * surface end up touching at an edge (zeux/meshoptimizer#699): on a head CT, a few dozen edges among
 * hundreds of thousands. Such a mesh is no longer edge-manifold. Those pinches are pulled apart by
 * splitting their vertices (pinch-repair.ts); a defect that is not a pinch makes the simplification
 * run again with the vertices around it locked, with a growing locked neighbourhood.
 */
export async function simplifyMesh(
  mesh: Mesh,
  maxErrorMm: number,
  opts: SimplifyOptions = {},
): Promise<SimplifiedMesh> {
  // A big mesh goes in slabs (simplify-parts.ts): faster even in one thread, and parallel in workers.
  const big = mesh.indices.length / 3 >= (opts.partsFromTriangles ?? PARTS_FROM_TRIANGLES);
  const parts = big ? Math.max(1, opts.parts ?? 2) : 1;
  const runPart = opts.runPart ?? simplifyPart;
  const unchanged: SimplifiedMesh = {
    ...mesh,
    errorMm: 0,
    lockedVertices: 0,
    splitVertices: 0,
    unsimplified: true,
    rounds: 0,
    parts,
    seamVertices: 0,
  };
  if (!(maxErrorMm > 0) || mesh.indices.length === 0) return unchanged;
  await MeshoptSimplifier.ready;
  const vcount = mesh.positions.length / 3;
  let lock: Uint8Array | null = null;
  let adjacency: Adjacency | null = null;
  for (let round = 0; round <= LOCK_RADII.length; round++) {
    let seamVertices = 0;
    let indices: Uint32Array;
    let error: number;
    const onPart = (done: number, total: number): void =>
      opts.onStep?.({ kind: 'parts', round, done, parts: total });
    if (parts > 1) {
      const r = await simplifyInParts(mesh, lock, maxErrorMm, parts, runPart, opts.layers, onPart);
      [indices, error, seamVertices] = [r.indices, r.errorMm, r.seamVertices];
    } else {
      // A small mesh, in this thread: a fraction of a second.
      onPart(0, 1);
      [indices, error] = lock
        ? MeshoptSimplifier.simplifyWithAttributes(
            mesh.indices,
            mesh.positions,
            3,
            new Float32Array(0),
            0,
            [],
            lock,
            0,
            maxErrorMm,
            ['ErrorAbsolute'],
          )
        : MeshoptSimplifier.simplify(mesh.indices, mesh.positions, 3, 0, maxErrorMm, ['ErrorAbsolute']);
      onPart(1, 1);
    }
    opts.onStep?.({ kind: 'check', round });
    // Checked on the kept vertices only: a few per cent of the input's.
    const compacted = compact(mesh.positions, indices);
    const bad = badEdgeVertices(compacted.indices, compacted.positions.length / 3);
    let locked = 0;
    if (lock) for (const l of lock) locked += l;
    const done = (m: Mesh, split: number): SimplifiedMesh => ({
      positions: m.positions,
      indices: m.indices,
      errorMm: error,
      lockedVertices: locked,
      splitVertices: split,
      unsimplified: false,
      rounds: round + 1,
      parts,
      seamVertices,
    });
    if (bad.length === 0) return done(compacted, 0);
    // Usually the defects are pinches: split them apart, far cheaper than simplifying again.
    const repaired = repairPinches(compacted, bad);
    if (repaired) return done(repaired, repaired.positions.length / 3 - compacted.positions.length / 3);
    const radius = LOCK_RADII[round];
    if (radius === undefined) break;
    lock ??= new Uint8Array(vcount);
    adjacency ??= buildAdjacency(mesh.indices, vcount);
    // The defects by their numbers in the input, around which the next round locks.
    lockAround(
      lock,
      adjacency,
      bad.map((v) => compacted.original[v] as number),
      radius,
    );
  }
  return { ...unchanged, rounds: LOCK_RADII.length + 1 };
}

/**
 * Drops the vertices no triangle uses any more, numbering the kept ones in the order the indices
 * first name them (as meshoptimizer's compactMesh does); indices are rewritten in place, and
 * `original` gives each kept vertex's number in `src`. One pass over the simplified indices, and a
 * copy of the positions they name (about one vertex in ten of the input's).
 */
function compact(src: Float32Array, indices: Uint32Array): Mesh & { original: Uint32Array } {
  const remap = new Int32Array(src.length / 3).fill(-1);
  const kept: number[] = [];
  for (let i = 0; i < indices.length; i++) {
    const v = indices[i] as number;
    let r = remap[v] as number;
    if (r < 0) {
      r = kept.length;
      remap[v] = r;
      kept.push(v);
    }
    indices[i] = r;
  }
  const original = Uint32Array.from(kept);
  const positions = new Float32Array(original.length * 3);
  for (let r = 0; r < original.length; r++) {
    const v = original[r] as number;
    positions[r * 3] = src[v * 3] as number;
    positions[r * 3 + 1] = src[v * 3 + 1] as number;
    positions[r * 3 + 2] = src[v * 3 + 2] as number;
  }
  return { positions, indices, original };
}

interface Adjacency {
  start: Uint32Array;
  list: Uint32Array;
}

/** Neighbour lists of the input mesh (each neighbour listed once per triangle it shares). */
function buildAdjacency(indices: Uint32Array, vcount: number): Adjacency {
  const start = new Uint32Array(vcount + 1);
  for (const v of indices) start[v + 1] = (start[v + 1] as number) + 2;
  for (let v = 0; v < vcount; v++) start[v + 1] = (start[v + 1] as number) + (start[v] as number);
  const fill = start.slice(0, vcount);
  const list = new Uint32Array(indices.length * 2);
  for (let t = 0; t < indices.length; t += 3) {
    for (let e = 0; e < 3; e++) {
      const a = indices[t + e] as number;
      const b = indices[t + ((e + 1) % 3)] as number;
      const c = indices[t + ((e + 2) % 3)] as number;
      list[fill[a]!++] = b;
      list[fill[a]!++] = c;
    }
  }
  return { start, list };
}

/** Locks `seeds` and every vertex within `radius` edges of them in the input mesh. */
function lockAround(lock: Uint8Array, adj: Adjacency, seeds: Uint32Array, radius: number): void {
  let frontier = Array.from(seeds);
  for (const v of frontier) lock[v] = 1;
  for (let r = 0; r < radius; r++) {
    const next: number[] = [];
    for (const v of frontier) {
      for (let i = adj.start[v] as number; i < (adj.start[v + 1] as number); i++) {
        const w = adj.list[i] as number;
        if (lock[w]) continue;
        lock[w] = 1;
        next.push(w);
      }
    }
    frontier = next;
  }
}
