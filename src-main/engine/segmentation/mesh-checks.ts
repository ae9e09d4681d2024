import type { Mesh } from './iso-surface.js';

/**
 * The vertices of every edge that is not shared by exactly two triangles running along it in
 * opposite directions: where a mesh stops being a closed, consistently wound, edge-manifold surface.
 * That holds exactly when every drawn edge a->b is drawn once and its reverse b->a once. The drawn
 * edges are grouped by their first vertex (a counting sort), so each test looks through two short
 * lists: linear in the mesh, where sorting every edge key cost ten times as much.
 */
export function badEdgeVertices(indices: Uint32Array, vertexCount: number): Uint32Array {
  const n = indices.length;
  const start = new Uint32Array(vertexCount + 1);
  for (let i = 0; i < n; i++) start[(indices[i] as number) + 1]!++;
  for (let v = 0; v < vertexCount; v++) start[v + 1]! += start[v] as number;
  const fill = start.slice(0, vertexCount);
  const to = new Uint32Array(n);
  for (let t = 0; t < n; t += 3) {
    const a = indices[t] as number;
    const b = indices[t + 1] as number;
    const c = indices[t + 2] as number;
    to[fill[a]!++] = b;
    to[fill[b]!++] = c;
    to[fill[c]!++] = a;
  }
  const bad = new Uint8Array(vertexCount);
  let count = 0;
  const mark = (v: number): void => {
    if (bad[v] === 0) count++;
    bad[v] = 1;
  };
  for (let a = 0; a < vertexCount; a++) {
    const from = start[a] as number;
    const end = start[a + 1] as number;
    for (let i = from; i < end; i++) {
      const b = to[i] as number;
      let same = 0;
      for (let j = from; j < end; j++) if (to[j] === b) same++;
      let back = 0;
      const bEnd = start[b + 1] as number;
      for (let j = start[b] as number; j < bEnd; j++) if (to[j] === a) back++;
      // A degenerate edge (a->a) would find itself as its own reverse.
      if (same !== 1 || back !== 1 || a === b) {
        mark(a);
        mark(b);
      }
    }
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
