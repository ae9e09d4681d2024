import type { Mesh } from './iso-surface.js';

export interface EdgeReport {
  /** Distinct undirected edges. */
  edges: number;
  /** Edges used by one triangle only (holes). */
  boundaryEdges: number;
  /** Edges used by three or more triangles. */
  nonManifoldEdges: number;
  /** Edges whose two triangles run along them in the same direction (flipped neighbours). */
  inconsistentEdges: number;
}

/**
 * Every triangle edge as a number (a * vertexCount + b), as drawn (a to b) and undirected (smaller
 * vertex first), both sorted so that equal edges sit next to each other.
 */
function sortedEdgeKeys(
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
 * Counts edge defects by sorting edge keys (no hash map: meshes run to millions of triangles).
 * A closed, consistently wound, edge-manifold mesh has all three defect counts at zero.
 */
export function edgeReport(indices: Uint32Array, vertexCount: number): EdgeReport {
  const { n, undirected, directed } = sortedEdgeKeys(indices, vertexCount);
  let edges = 0;
  let boundaryEdges = 0;
  let nonManifoldEdges = 0;
  for (let i = 0; i < n;) {
    let j = i + 1;
    while (j < n && undirected[j] === undirected[i]) j++;
    edges++;
    if (j - i === 1) boundaryEdges++;
    else if (j - i > 2) nonManifoldEdges++;
    i = j;
  }
  let inconsistentEdges = 0;
  for (let i = 1; i < n; i++) if (directed[i] === directed[i - 1]) inconsistentEdges++;
  return { edges, boundaryEdges, nonManifoldEdges, inconsistentEdges };
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

export function isClosedManifold(mesh: Mesh): boolean {
  const r = edgeReport(mesh.indices, mesh.positions.length / 3);
  return r.boundaryEdges === 0 && r.nonManifoldEdges === 0 && r.inconsistentEdges === 0;
}

/** Signed enclosed volume (divergence theorem): positive when the triangles face outward. */
export function signedVolume(mesh: Mesh): number {
  const p = mesh.positions;
  const ix = mesh.indices;
  let v = 0;
  for (let t = 0; t < ix.length; t += 3) {
    const a = (ix[t] as number) * 3;
    const b = (ix[t + 1] as number) * 3;
    const c = (ix[t + 2] as number) * 3;
    const ax = p[a] as number;
    const ay = p[a + 1] as number;
    const az = p[a + 2] as number;
    const bx = p[b] as number;
    const by = p[b + 1] as number;
    const bz = p[b + 2] as number;
    const cx = p[c] as number;
    const cy = p[c + 1] as number;
    const cz = p[c + 2] as number;
    v += ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx);
  }
  return v / 6;
}

export interface Bounds {
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

/** V - E + F: 2 for each sphere-like closed component, 0 for a torus. */
export function eulerCharacteristic(mesh: Mesh): number {
  const r = edgeReport(mesh.indices, mesh.positions.length / 3);
  const used = new Uint8Array(mesh.positions.length / 3);
  for (const i of mesh.indices) used[i] = 1;
  let v = 0;
  for (const u of used) v += u;
  return v - r.edges + mesh.indices.length / 3;
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
