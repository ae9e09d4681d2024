import type { Mesh } from './iso-surface.js';
import { badEdgeVertices } from './mesh-checks.js';

/** How far a split-off vertex moves into its own sheet, in mm: far below any scan's resolution. */
const NUDGE_MM = 1e-3;

/**
 * Separates surface sheets that touch at an edge or a vertex ("pinches"), the defect an edge-collapse
 * simplifier leaves when it does not check the link condition, after removing flaps (pairs of
 * triangles folded onto each other). Each vertex at a defect is split into
 * one vertex per fan of triangles around it; where four triangles share an edge, they are paired into
 * the two sheets by their order around the edge. Split-off copies move by NUDGE_MM into their own
 * sheet, so that the sheets stay apart also for readers that weld STL corners by position.
 * Returns the repaired mesh, or null when a defect is not a pinch (it then needs another remedy).
 * `defects`: the input's badEdgeVertices, when the caller has them (that check lists every edge).
 * Both changes touch only triangles at the defects, so only edges with an end there (or at a split-off
 * copy) can change, and only those are checked again: every other edge was sound and still is.
 */
export function repairPinches(
  input: Mesh,
  defects = badEdgeVertices(input.indices, input.positions.length / 3),
): Mesh | null {
  if (defects.length === 0) return input;
  const vcount = input.positions.length / 3;
  const near = new Uint8Array(vcount);
  for (const v of defects) near[v] = 1;
  const ix = input.indices.slice();
  // The triangles at the defects: every triangle either change touches, and every one that holds an
  // edge with an end at a defect or at a split-off copy. The checks look at these alone.
  const local: number[] = [];
  for (let t = 0; t < ix.length; t += 3) {
    if (near[ix[t] as number] || near[ix[t + 1] as number] || near[ix[t + 2] as number]) local.push(t / 3);
  }
  const dropped = flapsAmong(ix, local);
  const kept = dropped.size === 0 ? local : local.filter((t) => !dropped.has(t));
  // No flap dropped: the defects are the input's.
  const bad = dropped.size === 0 ? defects : badEdgeVertices(cornersOf(ix, kept), vcount, near);
  if (bad.length === 0) return { positions: input.positions, indices: without(ix, dropped) };
  const isBad = new Uint8Array(vcount);
  for (const v of bad) isBad[v] = 1;
  const around = new Map<number, number[]>();
  for (const t of kept) {
    for (let k = 0; k < 3; k++) {
      const v = ix[t * 3 + k] as number;
      if (!isBad[v]) continue;
      let list = around.get(v);
      if (!list) around.set(v, (list = []));
      list.push(t);
    }
  }
  const extra: number[] = [];
  const pos = (v: number): [number, number, number] => {
    if (v < vcount)
      return [
        input.positions[v * 3] as number,
        input.positions[v * 3 + 1] as number,
        input.positions[v * 3 + 2] as number,
      ];
    const o = (v - vcount) * 3;
    return [extra[o] as number, extra[o + 1] as number, extra[o + 2] as number];
  };
  for (const v of bad) {
    const tris = around.get(v) ?? [];
    const fans = fansAround(v, tris, ix, pos);
    if (!fans) return null;
    for (const fan of fans.slice(1)) {
      const id = vcount + extra.length / 3;
      const p = pos(v);
      const c: [number, number, number] = [0, 0, 0];
      for (const t of fan) {
        for (let k = 0; k < 3; k++) {
          const q = pos(ix[t * 3 + k] as number);
          c[0] += q[0];
          c[1] += q[1];
          c[2] += q[2];
        }
      }
      const n = fan.length * 3;
      const dir = c.map((x, a) => x / n - (p[a] as number));
      const len = Math.hypot(...dir) || 1;
      extra.push(...p.map((x, a) => x + (NUDGE_MM * (dir[a] as number)) / len));
      for (const t of fan) for (let k = 0; k < 3; k++) if (ix[t * 3 + k] === v) ix[t * 3 + k] = id;
    }
  }
  const positions = new Float32Array(input.positions.length + extra.length);
  positions.set(input.positions);
  positions.set(extra, input.positions.length);
  const changed = new Uint8Array(positions.length / 3);
  changed.set(isBad);
  changed.fill(1, vcount);
  if (badEdgeVertices(cornersOf(ix, kept), changed.length, changed).length > 0) return null;
  return { positions, indices: without(ix, dropped) };
}

/** The corners of triangles `tris` of `ix`, as an index of their own. */
function cornersOf(ix: Uint32Array, tris: readonly number[]): Uint32Array {
  const out = new Uint32Array(tris.length * 3);
  tris.forEach((t, k) => out.set(ix.subarray(t * 3, t * 3 + 3), k * 3));
  return out;
}

/** `ix` without the triangles `drop` (itself when there are none), copied in runs between them. */
function without(ix: Uint32Array, drop: ReadonlySet<number>): Uint32Array {
  if (drop.size === 0) return ix;
  const out = new Uint32Array(ix.length - drop.size * 3);
  let w = 0;
  let from = 0;
  for (const t of [...drop].sort((a, b) => a - b)) {
    out.set(ix.subarray(from * 3, t * 3), w);
    w += (t - from) * 3;
    from = t + 1;
  }
  out.set(ix.subarray(from * 3), w);
  return out;
}

/**
 * Flaps among triangles `tris`: two triangles on the same three vertices facing opposite ways, which
 * enclose nothing (a collapse folded a thin spot flat). Both of a flap's triangles are at its vertices,
 * so looking among the triangles at the defects finds every flap there.
 */
function flapsAmong(ix: Uint32Array, tris: readonly number[]): Set<number> {
  const seen = new Map<string, number>();
  const drop = new Set<number>();
  for (const t of tris) {
    const c = [ix[t * 3] as number, ix[t * 3 + 1] as number, ix[t * 3 + 2] as number];
    const key = [...c].sort((a, b) => a - b).join(',');
    const other = seen.get(key);
    if (other === undefined || drop.has(other)) {
      seen.set(key, t);
      continue;
    }
    // Same vertices: opposite winding when the other triangle runs c[0] -> c[2].
    const o = [ix[other * 3] as number, ix[other * 3 + 1] as number, ix[other * 3 + 2] as number];
    const k = o.indexOf(c[0] as number);
    if (o[(k + 1) % 3] === c[2]) {
      drop.add(t);
      drop.add(other);
    }
  }
  return drop;
}

/**
 * The fans of triangles around vertex v: groups joined across the edges at v that two triangles share
 * (four-triangle edges paired into sheets by angle). Null when an edge at v cannot be paired.
 */
function fansAround(
  v: number,
  tris: number[],
  ix: Uint32Array,
  pos: (v: number) => [number, number, number],
): number[][] | null {
  // For every other vertex x: the triangles with an edge v-x, and whether they run v -> x.
  const byEdge = new Map<number, { t: number; out: boolean; third: number }[]>();
  for (const t of tris) {
    const c = [ix[t * 3] as number, ix[t * 3 + 1] as number, ix[t * 3 + 2] as number];
    const k = c.indexOf(v);
    if (k < 0) continue;
    const next = c[(k + 1) % 3] as number;
    const prev = c[(k + 2) % 3] as number;
    for (const [x, out, third] of [
      [next, true, prev],
      [prev, false, next],
    ] as const) {
      let list = byEdge.get(x);
      if (!list) byEdge.set(x, (list = []));
      list.push({ t, out, third });
    }
  }
  const parent = new Map<number, number>(tris.map((t) => [t, t]));
  const find = (t: number): number => {
    while (parent.get(t) !== t) t = parent.get(t) as number;
    return t;
  };
  const join = (a: number, b: number): void => {
    parent.set(find(a), find(b));
  };
  const pv = pos(v);
  const fours: [number, { t: number; out: boolean; third: number }[]][] = [];
  for (const [x, list] of byEdge) {
    if (list.length === 4) fours.push([x, list]);
    else if (list.length !== 2 || list[0]?.out === list[1]?.out) return null;
    else join(list[0]!.t, list[1]!.t);
  }
  for (const [x, list] of fours) {
    // Each sheet around v is a chain of triangles whose two ends meet at this edge: pair the ends of
    // one chain when the chains say so, else by the triangles' order around the edge.
    const ins = list.filter((h) => !h.out);
    const outs = list.filter((h) => h.out);
    if (ins.length !== 2 || outs.length !== 2) return null;
    const same = (a: { t: number }, b: { t: number }): boolean => find(a.t) === find(b.t);
    if (
      (same(ins[0]!, outs[0]!) && same(ins[1]!, outs[1]!)) ||
      (same(ins[0]!, outs[1]!) && same(ins[1]!, outs[0]!))
    )
      continue;
    const px = pos(x);
    // Order the four triangles around the edge; each pairs with its neighbour across the inside wedge.
    const d = norm(sub(px, pv));
    const e1 = norm(cross(d, Math.abs(d[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0]));
    const e2 = cross(d, e1);
    const sorted = list
      .map((h) => {
        const r = sub(pos(h.third), pv);
        const p = sub(r, scale(d, dot(r, d)));
        return { ...h, p, angle: Math.atan2(dot(p, e2), dot(p, e1)) };
      })
      .sort((a, b) => a.angle - b.angle);
    const s0 = sorted[0]!;
    const corners = [ix[s0.t * 3] as number, ix[s0.t * 3 + 1] as number, ix[s0.t * 3 + 2] as number].map(pos);
    const normal = cross(sub(corners[1]!, corners[0]!), sub(corners[2]!, corners[0]!));
    // Positive rotation about d turns s0 towards its inside (against its normal): partner is the next one.
    const forward = dot(cross(d, s0.p), normal) < 0;
    const pairs = forward
      ? [
          [0, 1],
          [2, 3],
        ]
      : [
          [3, 0],
          [1, 2],
        ];
    for (const [i, j] of pairs) {
      const a = sorted[i as number]!;
      const b = sorted[j as number]!;
      if (a.out === b.out) return null;
      join(a.t, b.t);
    }
  }
  const fans = new Map<number, number[]>();
  for (const t of tris) {
    const r = find(t);
    let f = fans.get(r);
    if (!f) fans.set(r, (f = []));
    f.push(t);
  }
  return [...fans.values()];
}

type V3 = [number, number, number];
const sub = (a: V3, b: V3): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const scale = (a: V3, s: number): V3 => [a[0] * s, a[1] * s, a[2] * s];
const dot = (a: V3, b: V3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: V3, b: V3): V3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
const norm = (a: V3): V3 => scale(a, 1 / (Math.hypot(a[0], a[1], a[2]) || 1));
