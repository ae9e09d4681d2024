/**
 * Mesh measurements that only tests use: edge defects counted, enclosed volume, Euler characteristic.
 */
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

/** V - E + F: 2 for each sphere-like closed component, 0 for a torus. */
export function eulerCharacteristic(mesh: Mesh): number {
  const r = edgeReport(mesh.indices, mesh.positions.length / 3);
  const used = new Uint8Array(mesh.positions.length / 3);
  for (const i of mesh.indices) used[i] = 1;
  let v = 0;
  for (const u of used) v += u;
  return v - r.edges + mesh.indices.length / 3;
}
