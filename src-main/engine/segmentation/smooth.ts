/**
 * Taubin's lambda|mu smoothing: a shrinking step then an inflating one, so that the staircase of a
 * voxel surface goes away without the mesh shrinking as it would under plain Laplacian smoothing.
 * Only vertex positions move, so a closed edge-manifold mesh stays one.
 *
 * Neighbour averages are accumulated over triangles: in a closed manifold every edge lies in two
 * triangles, so each neighbour counts twice and the average is the umbrella operator's, with no
 * adjacency lists to build.
 */
export interface SmoothOptions {
  lambda?: number;
  mu?: number;
  /** Positions are kept within [min, max] per coordinate (the scan's extent, in voxel coordinates). */
  clamp?: { min: [number, number, number]; max: [number, number, number] };
}

export function taubinSmooth(
  positions: Float32Array,
  indices: Uint32Array,
  iterations: number,
  opts: SmoothOptions = {},
): void {
  if (iterations <= 0 || indices.length === 0) return;
  const lambda = opts.lambda ?? 0.5;
  const mu = opts.mu ?? -0.53;
  const vcount = positions.length / 3;
  const count = new Uint16Array(vcount);
  for (let i = 0; i < indices.length; i++)
    count[indices[i] as number] = (count[indices[i] as number] as number) + 2;
  const sum = new Float32Array(positions.length);
  const step = (factor: number): void => {
    sum.fill(0);
    for (let t = 0; t < indices.length; t += 3) {
      const a = (indices[t] as number) * 3;
      const b = (indices[t + 1] as number) * 3;
      const c = (indices[t + 2] as number) * 3;
      for (let k = 0; k < 3; k++) {
        const pa = positions[a + k] as number;
        const pb = positions[b + k] as number;
        const pc = positions[c + k] as number;
        sum[a + k] = (sum[a + k] as number) + pb + pc;
        sum[b + k] = (sum[b + k] as number) + pa + pc;
        sum[c + k] = (sum[c + k] as number) + pa + pb;
      }
    }
    for (let v = 0; v < vcount; v++) {
      const n = count[v] as number;
      if (n === 0) continue;
      for (let k = 0; k < 3; k++) {
        const o = v * 3 + k;
        const p = positions[o] as number;
        positions[o] = p + factor * ((sum[o] as number) / n - p);
      }
    }
  };
  for (let it = 0; it < iterations; it++) {
    step(lambda);
    step(mu);
  }
  if (opts.clamp) {
    const { min, max } = opts.clamp;
    for (let o = 0; o < positions.length; o++) {
      const k = o % 3;
      const p = positions[o] as number;
      if (p < min[k]!) positions[o] = min[k]!;
      else if (p > max[k]!) positions[o] = max[k]!;
    }
  }
}
