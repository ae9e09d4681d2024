import type { Mesh } from './iso-surface.js';

/**
 * Every triangle edge as a number (a * vertexCount + b), as drawn (a to b) and undirected (smaller
 * vertex first), both sorted so that equal edges sit next to each other.
 */
export function sortedEdgeKeys(
  indices: Uint32Array,
  vertexCount: number,
): { n: number; undirected: Float64Array; directed: Float64Array } {
  const n = indices.length;
  const undirected = new Float64Array(n);
  const directed = new Float64Array(n);
  for (let t = 0; t < n; t += 3) {
    for (let e = 0; e < 3; e++) {
      const a = indices[t + e] as number;
      const b = indices[t + ((e + 1) % 3)] as number;
      directed[t + e] = a * vertexCount + b;
      undirected[t + e] = a < b ? a * vertexCount + b : b * vertexCount + a;
    }
  }
  undirected.sort();
  directed.sort();
  return { n, undirected, directed };
}

/**
 * The vertices of every edge that is not shared by exactly two triangles running along it in
 * opposite directions: where a mesh stops being a closed, consistently wound, edge-manifold surface.
 */
export function badEdgeVertices(indices: Uint32Array, vertexCount: number): Uint32Array {
  const { n, undirected, directed } = sortedEdgeKeys(indices, vertexCount);
  const bad = new Set<number>();
  const mark = (key: number): void => {
    const a = Math.floor(key / vertexCount);
    bad.add(a);
    bad.add(key - a * vertexCount);
  };
  for (let i = 0; i < n;) {
    let j = i + 1;
    while (j < n && undirected[j] === undirected[i]) j++;
    if (j - i !== 2) mark(undirected[i] as number);
    i = j;
  }
  for (let i = 1; i < n; i++) if (directed[i] === directed[i - 1]) mark(directed[i] as number);
  return Uint32Array.from(bad);
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
  // Weld by position: sort vertex ids by (x, y, z) and join neighbours with equal positions.
  const order = Uint32Array.from({ length: n }, (_, v) => v).sort(
    (a, b) =>
      (p[a * 3] as number) - (p[b * 3] as number) ||
      (p[a * 3 + 1] as number) - (p[b * 3 + 1] as number) ||
      (p[a * 3 + 2] as number) - (p[b * 3 + 2] as number),
  );
  for (let i = 1; i < n; i++) {
    const a = order[i - 1] as number;
    const b = order[i] as number;
    if (p[a * 3] === p[b * 3] && p[a * 3 + 1] === p[b * 3 + 1] && p[a * 3 + 2] === p[b * 3 + 2]) union(a, b);
  }
  const used = new Uint8Array(n);
  for (const v of ix) used[v] = 1;
  const roots = new Set<number>();
  for (let v = 0; v < n; v++) if (used[v]) roots.add(find(v));
  return roots.size;
}
