/**
 * Taubin's lambda|mu smoothing: a shrinking step then an inflating one, so that the staircase of a
 * voxel surface goes away without the mesh shrinking as it would under plain Laplacian smoothing.
 * Only vertex positions move, so a closed edge-manifold mesh stays one.
 *
 * Each vertex moves towards the average of the other two corners of every triangle around it: in a
 * closed manifold every edge lies in two triangles, so each neighbour counts twice and the average is
 * the umbrella operator's. Each step reads one copy of the positions and writes the other, so that
 * vertex ranges are independent: the mesh workers smooth a big surface side by side.
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
}

/** One smoothing step over vertices [v0, v1): reads `from`, writes `to`. Arrays are shared, not copied. */
export interface SmoothTask {
  kind: 'smooth';
  /** Per vertex, where its list in `others` starts (vertex count + 1 entries). */
  start: Uint32Array;
  /** The two other corners of each triangle around each vertex. */
  others: Uint32Array;
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
  const start = new Uint32Array(alloc((vcount + 1) * 4));
  for (const v of indices) start[v + 1] = (start[v + 1] as number) + 2;
  for (let v = 0; v < vcount; v++) start[v + 1] = (start[v + 1] as number) + (start[v] as number);
  const others = new Uint32Array(alloc(indices.length * 2 * 4));
  const fill = start.slice(0, vcount);
  for (let t = 0; t < indices.length; t += 3) {
    const a = indices[t] as number;
    const b = indices[t + 1] as number;
    const c = indices[t + 2] as number;
    others[fill[a]!++] = b;
    others[fill[a]!++] = c;
    others[fill[b]!++] = a;
    others[fill[b]!++] = c;
    others[fill[c]!++] = a;
    others[fill[c]!++] = b;
  }
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
  }
  if (work !== positions) positions.set(work);
}

/** One step of the smoothing over one vertex range (also run by the mesh workers). */
export function smoothStep(t: SmoothTask): void {
  const { start, others, from, to, factor, clamp } = t;
  for (let v = t.v0; v < t.v1; v++) {
    const s0 = start[v] as number;
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
        const w = (others[i] as number) * 3;
        sx += from[w] as number;
        sy += from[w + 1] as number;
        sz += from[w + 2] as number;
      }
      const n = s1 - s0;
      x = px + factor * (sx / n - px);
      y = py + factor * (sy / n - py);
      z = pz + factor * (sz / n - pz);
    }
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
