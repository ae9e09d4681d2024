/**
 * Taubin's lambda|mu smoothing: a shrinking step then an inflating one, so that the staircase of a
 * voxel surface goes away without the mesh shrinking as it would under plain Laplacian smoothing.
 * Only vertex positions move, so a closed edge-manifold mesh stays one.
 *
 * Each vertex moves towards the average of its neighbours (the umbrella operator). The neighbours are
 * read off the drawn edges: in a closed, consistently wound surface (what the extraction makes) every
 * edge a-b is drawn once as a->b and once as b->a, so the edges drawn from a name each neighbour of a
 * exactly once: three entries per triangle, half of listing both other corners of every triangle.
 * Each step reads one copy of the positions and writes the other, so that vertex ranges are
 * independent: the mesh workers smooth a big surface side by side.
 */
interface SmoothOptions {
  lambda?: number;
  mu?: number;
  /** Positions are kept within [min, max] per coordinate (the scan's extent, in voxel coordinates). */
  clamp?: { min: [number, number, number]; max: [number, number, number] };
  /** Runs one step over one vertex range, usually in a worker thread; without it, all run here. */
  run?: (task: SmoothTask) => Promise<unknown>;
  /** Vertex ranges per step when `run` is given (default 4). */
  parts?: number;
  /** Told as each iteration (a shrinking and an inflating step) ends, for progress. */
  onIteration?: (done: number, iterations: number) => void;
}

/** One smoothing step over vertices [v0, v1): reads `from`, writes `to`. Arrays are shared, not copied. */
export interface SmoothTask {
  kind: 'smooth';
  /** Per vertex, where its list in `others` starts (vertex count + 1 entries). */
  start: Int32Array;
  /** Each vertex's neighbours, as offsets into the positions (3 x the vertex index). */
  others: Int32Array;
  from: Float32Array;
  to: Float32Array;
  factor: number;
  v0: number;
  v1: number;
  /** Given on the last step only. */
  clamp?: { min: [number, number, number]; max: [number, number, number] } | undefined;
}

export async function taubinSmooth(
  positions: Float32Array,
  indices: Uint32Array,
  iterations: number,
  opts: SmoothOptions = {},
): Promise<void> {
  if (iterations <= 0 || indices.length === 0) return;
  const lambda = opts.lambda ?? 0.5;
  const mu = opts.mu ?? -0.53;
  const vcount = positions.length / 3;
  const shared = opts.run !== undefined;
  const alloc = (bytes: number): ArrayBuffer | SharedArrayBuffer =>
    shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
  const { start, others } = neighbours(indices, vcount, alloc);
  // Workers need the positions in shared memory; the result comes back to `positions`.
  const work =
    shared && !(positions.buffer instanceof SharedArrayBuffer)
      ? new Float32Array(new SharedArrayBuffer(positions.byteLength))
      : positions;
  if (work !== positions) work.set(positions);
  const scratch = new Float32Array(alloc(positions.byteLength));
  const parts = opts.run ? Math.max(1, opts.parts ?? 4) : 1;
  const bounds = Array.from({ length: parts + 1 }, (_, p) => Math.round((vcount * p) / parts));
  const steps = iterations * 2;
  for (let s = 0; s < steps; s++) {
    // An even number of steps: the last one writes back into `work`.
    const [from, to] = s % 2 === 0 ? [work, scratch] : [scratch, work];
    const factor = s % 2 === 0 ? lambda : mu;
    const clamp = s === steps - 1 ? opts.clamp : undefined;
    const tasks = bounds.slice(0, parts).map((v0, p): SmoothTask => ({
      kind: 'smooth',
      start,
      others,
      from,
      to,
      factor,
      v0,
      v1: bounds[p + 1] as number,
      clamp,
    }));
    if (opts.run) await Promise.all(tasks.map(opts.run));
    else tasks.forEach(smoothStep);
    if (s % 2 === 1) opts.onIteration?.((s + 1) / 2, iterations);
  }
  if (work !== positions) positions.set(work);
}

/** One step of the smoothing over one vertex range (also run by the mesh workers). */
export function smoothStep(t: SmoothTask): void {
  const { start, others, from, to, factor, clamp } = t;
  let s0 = start[t.v0] as number;
  for (let v = t.v0; v < t.v1; v++) {
    const s1 = start[v + 1] as number;
    const o = v * 3;
    const px = from[o] as number;
    const py = from[o + 1] as number;
    const pz = from[o + 2] as number;
    let x = px;
    let y = py;
    let z = pz;
    if (s1 > s0) {
      let sx = 0;
      let sy = 0;
      let sz = 0;
      for (let i = s0; i < s1; i++) {
        const w = others[i] as number;
        sx += from[w] as number;
        sy += from[w + 1] as number;
        sz += from[w + 2] as number;
      }
      const n = s1 - s0;
      x = px + factor * (sx / n - px);
      y = py + factor * (sy / n - py);
      z = pz + factor * (sz / n - pz);
    }
    s0 = s1;
    if (clamp) {
      x = Math.min(Math.max(x, clamp.min[0]), clamp.max[0]);
      y = Math.min(Math.max(y, clamp.min[1]), clamp.max[1]);
      z = Math.min(Math.max(z, clamp.min[2]), clamp.max[2]);
    }
    to[o] = x;
    to[o + 1] = y;
    to[o + 2] = z;
  }
}

/**
 * Each vertex's neighbours from the drawn edges a->b, b->c, c->a (a counting sort by first vertex),
 * stored as position offsets (3 x index) so that the steps do no multiplication.
 */
function neighbours(
  indices: Uint32Array,
  vcount: number,
  alloc: (bytes: number) => ArrayBuffer | SharedArrayBuffer,
): { start: Int32Array; others: Int32Array } {
  const n = indices.length;
  const start = new Int32Array(alloc((vcount + 1) * 4));
  for (let i = 0; i < n; i++) start[(indices[i] as number) + 1]!++;
  for (let v = 0; v < vcount; v++) start[v + 1]! += start[v] as number;
  const fill = start.slice(0, vcount);
  const others = new Int32Array(alloc(n * 4));
  for (let t = 0; t < n; t += 3) {
    const a = indices[t] as number;
    const b = indices[t + 1] as number;
    const c = indices[t + 2] as number;
    others[fill[a]!++] = b * 3;
    others[fill[b]!++] = c * 3;
    others[fill[c]!++] = a * 3;
  }
  return { start, others };
}
