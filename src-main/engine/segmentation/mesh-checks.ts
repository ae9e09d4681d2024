import type { Mesh } from './iso-surface.js';

/**
 * The vertices of every edge that is not shared by exactly two triangles running along it in
 * opposite directions: where a mesh stops being a closed, consistently wound, edge-manifold surface.
 * That holds exactly when every drawn edge a->b is drawn once and its reverse b->a once.
 *
 * Each vertex gets the list of edges drawn from it and of those drawn to it (counting sorts); an edge
 * a->b is then judged from a's two lists alone (b once among a's out-edges, once among its in-edges),
 * without reaching into b's lists elsewhere in memory. With `only`, just the edges with at least one
 * flagged end are judged (at that end), and only flagged vertices get lists: after a local change
 * (pinch-repair.ts) the edges it touched are checked without listing the whole mesh's edges again.
 */
export function badEdgeVertices(indices: Uint32Array, vertexCount: number, only?: Uint8Array): Uint32Array {
  const n = indices.length;
  // Every corner starts one drawn edge and ends one, so a vertex has as many edges in as out: one
  // table of starts serves both lists.
  const start = new Uint32Array(vertexCount + 1);
  for (let i = 0; i < n; i++) {
    const v = indices[i] as number;
    if (!only || only[v]) start[v + 1]!++;
  }
  for (let v = 0; v < vertexCount; v++) start[v + 1]! += start[v] as number;
  const outFill = start.slice(0, vertexCount);
  const inFill = start.slice(0, vertexCount);
  const outTo = new Uint32Array(start[vertexCount] as number);
  const inFrom = new Uint32Array(start[vertexCount] as number);
  const add = (a: number, b: number): void => {
    if (!only || only[a]) outTo[outFill[a]!++] = b;
    if (!only || only[b]) inFrom[inFill[b]!++] = a;
  };
  for (let t = 0; t < n; t += 3) {
    const a = indices[t] as number;
    const b = indices[t + 1] as number;
    const c = indices[t + 2] as number;
    add(a, b);
    add(b, c);
    add(c, a);
  }
  const bad = new Uint8Array(vertexCount);
  let count = 0;
  const mark = (v: number): void => {
    if (bad[v] === 0) count++;
    bad[v] = 1;
  };
  /** Edge a->b or b->a is bad unless b is once among a's out-edges and once among its in-edges. */
  const judge = (a: number, b: number, from: number, end: number): void => {
    let out = 0;
    let back = 0;
    for (let j = from; j < end; j++) {
      if (outTo[j] === b) out++;
      if (inFrom[j] === b) back++;
    }
    // A degenerate edge (a->a) would find itself as its own reverse.
    if (out !== 1 || back !== 1 || a === b) {
      mark(a);
      mark(b);
    }
  };
  for (let a = 0; a < vertexCount; a++) {
    const from = start[a] as number;
    const end = start[a + 1] as number;
    for (let i = from; i < end; i++) judge(a, outTo[i] as number, from, end);
    // The in-list holds as many edges as the out-list: when every out-edge passed, the two lists
    // are the same set and every edge to a passed too. Only when its far end has no lists (`only`)
    // is an edge to a not also judged from there, so the far end of a bad one is marked.
    if (only) for (let i = from; i < end; i++) judge(a, inFrom[i] as number, from, end);
  }
  const out = new Uint32Array(count);
  for (let v = 0, k = 0; k < count; v++) if (bad[v]) out[k++] = v;
  return out;
}

interface Bounds {
  min: [number, number, number];
  max: [number, number, number];
}

export function meshBounds(positions: Float32Array): Bounds {
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      const v = positions[i + k] as number;
      if (v < min[k]!) min[k] = v;
      if (v > max[k]!) max[k] = v;
    }
  }
  return { min, max };
}

/**
 * Connected pieces of a mesh as a reader of its file sees them: triangles joined by shared corners,
 * corners at exactly the same position counted as one (STL has no shared vertices). Unused
 * vertices do not count.
 */
export function countSurfaces(mesh: Mesh): number {
  const p = mesh.positions;
  const n = p.length / 3;
  const parent = new Int32Array(n);
  for (let v = 0; v < n; v++) parent[v] = v;
  const find = (v: number): number => {
    while (parent[v] !== v) {
      const up = parent[parent[v] as number] as number;
      parent[v] = up;
      v = up;
    }
    return v;
  };
  const union = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[ra] = rb;
  };
  const ix = mesh.indices;
  for (let t = 0; t < ix.length; t += 3) {
    union(ix[t] as number, ix[t + 1] as number);
    union(ix[t] as number, ix[t + 2] as number);
  }
  // Weld by position: vertices with the same coordinates meet in one slot of a hash table.
  weldEqualPositions(p, union);
  const used = new Uint8Array(n);
  for (const v of ix) used[v] = 1;
  const roots = new Set<number>();
  for (let v = 0; v < n; v++) if (used[v]) roots.add(find(v));
  return roots.size;
}

/**
 * Calls join(a, b) for vertices at exactly the same position, through an open-addressing hash table
 * keyed on the coordinates' bits: linear in the vertices, where sorting them cost n log n comparisons.
 */
function weldEqualPositions(p: Float32Array, join: (a: number, b: number) => void): void {
  const n = p.length / 3;
  const bitsOf = new Uint32Array(p.buffer, p.byteOffset, p.length);
  let size = 1;
  while (size < 2 * n) size <<= 1;
  const mask = size - 1;
  const slot = new Int32Array(size).fill(-1);
  for (let v = 0; v < n; v++) {
    const x = bitsOf[v * 3] as number;
    const y = bitsOf[v * 3 + 1] as number;
    const z = bitsOf[v * 3 + 2] as number;
    // +0 and -0 are equal positions with different bits: key both as +0.
    const kx = p[v * 3] === 0 ? 0 : x;
    const ky = p[v * 3 + 1] === 0 ? 0 : y;
    const kz = p[v * 3 + 2] === 0 ? 0 : z;
    let h = (Math.imul(kx, 0x9e3779b1) ^ Math.imul(ky, 0x85ebca77) ^ Math.imul(kz, 0xc2b2ae3d)) & mask;
    for (;;) {
      const w = slot[h] as number;
      if (w < 0) {
        slot[h] = v;
        break;
      }
      if (p[w * 3] === p[v * 3] && p[w * 3 + 1] === p[v * 3 + 1] && p[w * 3 + 2] === p[v * 3 + 2]) {
        join(v, w);
        break;
      }
      h = (h + 1) & mask;
    }
  }
}
