/**
 * The tapered edge of a field of view. Padding outside a field of view meets the image in one step
 * only on the grid it was written on: exported on a grid turned in-plane (bilinear) or smoothed, the
 * voxels along the edge blend image and padding, no longer the padding value. Taken as air, they made
 * the wall of a 150 mm field of view through the real head CT skin: turned 5° or more, soft_tissue was
 * made, 46 % of its area the cylinder's wall (refused on the grid as written, a review).
 */

/** How many layers inward from the padding a taper is looked for in. */
const MAX_LAYERS = 8;
/** Layers beyond each layer whose mean it is compared with: an air gap compares with air, not skin. */
const PLATEAU_LAYERS = 4;
/**
 * Largest share of the mean of the PLATEAU_LAYERS beyond it (above the padding) a layer's mean may
 * reach to be part of the taper: beyond a taper the values rise to the image's. On the real head CT
 * padded beyond 75 mm, a step edge's first layer holds 0.77-0.93 of the next ones' (its air and
 * tissue), resampled on a turned grid 0.30-0.37 (the voxels across the step blend both).
 */
const TAPER_SHARE = 0.5;

/**
 * Adds to `pad` (1 on padding voxels) the layers of voxels next to it (6-neighbours, layer by layer)
 * that blend the image with the padding: the leading layers whose mean distance above `floor` (the
 * padding value) stays under TAPER_SHARE of that of the PLATEAU_LAYERS beyond each. Their values, air's or
 * tissue's, are neither: tissue against them is cut by the field of view's edge. Returns how many
 * layers were added (0 at a step edge, which leaves `pad` as it was).
 */
export function addTaperedEdge(
  data: Int16Array | Float32Array,
  dims: readonly [number, number, number],
  pad: Uint8Array,
  floor: number,
): number {
  const layers = padLayers(pad, dims, MAX_LAYERS + PLATEAU_LAYERS);
  const sums = layers.map((layer) => {
    let sum = 0;
    for (const p of layer) sum += Math.max(0, (data[p] as number) - floor);
    return sum;
  });
  const mean = (from: number, to: number): number => {
    let sum = 0;
    let count = 0;
    for (let k = from; k < Math.min(to, layers.length); k++) {
      sum += sums[k]!;
      count += layers[k]!.length;
    }
    return count > 0 ? sum / count : 0;
  };
  let taper = 0;
  while (taper < MAX_LAYERS && taper + 1 < layers.length) {
    const beyond = mean(taper + 1, taper + 1 + PLATEAU_LAYERS);
    if (!(mean(taper, taper + 1) < TAPER_SHARE * beyond)) break;
    taper++;
  }
  for (const layer of layers.slice(0, taper)) for (const p of layer) pad[p] = 1;
  return taper;
}

/** The voxels 1, 2, ... `count` steps (6-neighbours) from the nearest padding voxel, one list a step. */
function padLayers(pad: Uint8Array, dims: readonly [number, number, number], count: number): Int32Array[] {
  const [nx, ny, nz] = dims;
  const plane = nx * ny;
  const reached = Uint8Array.from(pad);
  const layers: Int32Array[] = [];
  // The first layer: voxels next to padding.
  let next: number[] = [];
  const visit = (q: number): void => {
    if (reached[q]) return;
    reached[q] = 1;
    next.push(q);
  };
  const around = (p: number): void => {
    const i = p % nx;
    const j = Math.floor(p / nx) % ny;
    const k = Math.floor(p / plane);
    if (i > 0) visit(p - 1);
    if (i < nx - 1) visit(p + 1);
    if (j > 0) visit(p - nx);
    if (j < ny - 1) visit(p + nx);
    if (k > 0) visit(p - plane);
    if (k < nz - 1) visit(p + plane);
  };
  for (let p = 0; p < pad.length; p++) if (pad[p]) around(p);
  while (layers.length < count && next.length > 0) {
    const layer = Int32Array.from(next);
    layers.push(layer);
    next = [];
    for (const p of layer) around(p);
  }
  return layers;
}
