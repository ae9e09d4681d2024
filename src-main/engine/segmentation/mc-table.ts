/**
 * The marching-cubes case table, generated here rather than copied, so that its two properties that
 * matter are true by construction and can be read off the code:
 *
 * 1. No cracks and no non-manifold edges. On an ambiguous face (two diagonal corners inside) the
 *    inside corners are always kept apart. Both cubes that share a face see the same rule, so they cut
 *    the face with the same segments. The rule also makes the surface bound exactly the 6-connected
 *    components of inside voxels, which is the connectivity the component filter uses.
 * 2. Consistent winding. Each face is walked counter-clockwise as seen from outside the cube, and every
 *    segment runs from the crossing where the walk enters the inside to the one where it leaves. The
 *    segments chain into loops whose triangles face away from the inside (outward normals by the
 *    right-hand rule).
 *
 * Loops are triangulated without any diagonal whose two ends lie on a common cube face. Such a chord
 * would lie in the face plane, where the neighbouring cube could create the same chord, and the edge
 * would then carry four triangles.
 *
 * Corner c sits at (c & 1, (c >> 1) & 1, (c >> 2) & 1). Edge e = axis * 4 + n: edges 0-3 run along x
 * from the corners with (y, z) = (0,0), (1,0), (0,1), (1,1); edges 4-7 run along y from (x, z) in the
 * same order; edges 8-11 run along z from (x, y) in the same order.
 */

export interface McTable {
  /** Triangles of case c are triEdges[triStart[c] .. triStart[c + 1]), three cube edges each. */
  triStart: Uint16Array;
  triEdges: Uint8Array;
  /** Bit e is set when case c cuts edge e. */
  edgeMask: Uint16Array;
}

type Vec3 = [number, number, number];

const cornerPos = (c: number): Vec3 => [c & 1, (c >> 1) & 1, (c >> 2) & 1];

/** The two corners of each edge, lower corner first. */
const EDGE_CORNERS: [number, number][] = (() => {
  const out: [number, number][] = [];
  for (let axis = 0; axis < 3; axis++) {
    const step = 1 << axis;
    for (let c = 0; c < 8; c++) if ((c & step) === 0) out.push([c, c + step]);
  }
  return out;
})();

const edgeOf = (a: number, b: number): number =>
  EDGE_CORNERS.findIndex(([p, q]) => (p === a && q === b) || (p === b && q === a));

/** The six faces, each as its four corners in counter-clockwise order seen from outside the cube. */
const FACES: number[][] = (() => {
  const faces: number[][] = [];
  for (let axis = 0; axis < 3; axis++) {
    for (const side of [0, 1]) {
      const corners = [0, 1, 2, 3, 4, 5, 6, 7].filter((c) => cornerPos(c)[axis] === side);
      const normal: Vec3 = [0, 0, 0];
      normal[axis] = side === 0 ? -1 : 1;
      const centre = [0.5, 0.5, 0.5].map((v, i) => (i === axis ? side : v));
      const u = (axis + 1) % 3;
      const w = (axis + 2) % 3;
      const angle = (c: number): number => {
        const p = cornerPos(c);
        return Math.atan2((p[w] as number) - (centre[w] ?? 0), (p[u] as number) - (centre[u] ?? 0));
      };
      // Sorting by angle in the (u, w) plane gives counter-clockwise order seen from +axis, since u x w = axis.
      corners.sort((a, b) => angle(a) - angle(b));
      faces.push(side === 1 ? corners : corners.reverse());
    }
  }
  return faces;
})();

const EDGE_FACES: number[][] = EDGE_CORNERS.map(([a, b]) =>
  FACES.map((f, i) => (f.includes(a) && f.includes(b) ? i : -1)).filter((i) => i >= 0),
);

const shareFace = (e1: number, e2: number): boolean =>
  (EDGE_FACES[e1] ?? []).some((f) => (EDGE_FACES[e2] ?? []).includes(f));

const edgeMid = (e: number): Vec3 => {
  const [a, b] = EDGE_CORNERS[e] ?? [0, 0];
  const p = cornerPos(a);
  const q = cornerPos(b);
  return [(p[0] + q[0]) / 2, (p[1] + q[1]) / 2, (p[2] + q[2]) / 2];
};

function triangleQuality(a: Vec3, b: Vec3, c: Vec3): number {
  const ab: Vec3 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  const ac: Vec3 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
  const bc: Vec3 = [c[0] - b[0], c[1] - b[1], c[2] - b[2]];
  const cx = ab[1] * ac[2] - ab[2] * ac[1];
  const cy = ab[2] * ac[0] - ab[0] * ac[2];
  const cz = ab[0] * ac[1] - ab[1] * ac[0];
  const area2 = Math.hypot(cx, cy, cz);
  const sq = (v: Vec3): number => v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  // 1 for an equilateral triangle, 0 for a degenerate one.
  return (2 * Math.sqrt(3) * area2) / (sq(ab) + sq(ac) + sq(bc));
}

/**
 * Triangulates one loop of cube edges, keeping its order (and so its winding), maximising the worst
 * triangle's quality among the triangulations whose diagonals leave every cube face.
 */
function triangulateLoop(loop: number[]): number[] {
  const n = loop.length;
  const pos = loop.map(edgeMid);
  const allowed = (i: number, j: number): boolean =>
    j - i === 1 || (i === 0 && j === n - 1) ? true : !shareFace(loop[i] ?? 0, loop[j] ?? 0);
  const best: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(-1));
  const split: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(-1));
  for (let len = 2; len < n; len++) {
    for (let i = 0; i + len < n; i++) {
      const j = i + len;
      if (!allowed(i, j)) continue;
      for (let k = i + 1; k < j; k++) {
        const left = k - i === 1 ? Infinity : (best[i]?.[k] ?? -1);
        const right = j - k === 1 ? Infinity : (best[k]?.[j] ?? -1);
        if (left < 0 || right < 0) continue;
        const q = Math.min(left, right, triangleQuality(pos[i] as Vec3, pos[k] as Vec3, pos[j] as Vec3));
        if (q > (best[i]?.[j] ?? -1)) {
          (best[i] as number[])[j] = q;
          (split[i] as number[])[j] = k;
        }
      }
    }
  }
  if ((best[0]?.[n - 1] ?? -1) < 0)
    throw new Error(`marching-cubes table: no valid triangulation of [${loop}]`);
  const tris: number[] = [];
  const emit = (i: number, j: number): void => {
    if (j - i < 2) return;
    const k = split[i]?.[j] ?? -1;
    tris.push(loop[i] ?? 0, loop[k] ?? 0, loop[j] ?? 0);
    emit(i, k);
    emit(k, j);
  };
  emit(0, n - 1);
  return tris;
}

function caseTriangles(inside: number): number[] {
  const isIn = (c: number): boolean => ((inside >> c) & 1) === 1;
  // next[e] = the crossing that follows crossing e along the surface loop.
  const next = new Map<number, number>();
  for (const face of FACES) {
    const crossings: { edge: number; entry: boolean }[] = [];
    for (let i = 0; i < 4; i++) {
      const a = face[i] ?? 0;
      const b = face[(i + 1) % 4] ?? 0;
      if (isIn(a) !== isIn(b)) crossings.push({ edge: edgeOf(a, b), entry: isIn(b) });
    }
    // Each entry is closed by the first exit after it: every run of inside corners gets its own segment,
    // which is what keeps diagonal inside corners apart.
    for (let i = 0; i < crossings.length; i++) {
      const c = crossings[i];
      if (!c?.entry) continue;
      for (let d = 1; d < crossings.length; d++) {
        const e = crossings[(i + d) % crossings.length];
        if (e && !e.entry) {
          next.set(c.edge, e.edge);
          break;
        }
      }
    }
  }
  const tris: number[] = [];
  const seen = new Set<number>();
  for (const start of next.keys()) {
    if (seen.has(start)) continue;
    const loop: number[] = [];
    for (let e: number | undefined = start; e !== undefined && !seen.has(e); e = next.get(e)) {
      seen.add(e);
      loop.push(e);
    }
    tris.push(...triangulateLoop(loop));
  }
  return tris;
}

/**
 * Builds the table. The engine does not run this: its threads use the table as
 * scripts/generate-mc-table.mjs wrote it out (mc-table.generated.ts), since building it costs each
 * of them tens of milliseconds, and the optimising compiler hundreds more on this code, while the
 * job waits. mc-table.test.ts checks that the written table is the one built here.
 */
export function buildMcTable(): McTable {
  const all: number[][] = [];
  for (let c = 0; c < 256; c++) all.push(caseTriangles(c));
  const triStart = new Uint16Array(257);
  for (let c = 0; c < 256; c++) triStart[c + 1] = (triStart[c] ?? 0) + (all[c]?.length ?? 0);
  const triEdges = new Uint8Array(triStart[256] ?? 0);
  const edgeMask = new Uint16Array(256);
  for (let c = 0; c < 256; c++) {
    const t = all[c] ?? [];
    triEdges.set(t, triStart[c] ?? 0);
    for (const e of t) edgeMask[c] = (edgeMask[c] ?? 0) | (1 << e);
  }
  return { triStart, triEdges, edgeMask };
}
