import { AppError } from '../../../src-shared/errors.js';
import { headFootAxis, type VoxelDirections } from './head-foot.js';

/**
 * Where an airway can be: on the middle of the head. The airway is the largest air space tissue
 * encloses; in a scan without the pharynx or the nasal cavity that is another one, and a crop of the
 * real head CT around one temporal bone made an "airway" of its mastoid air cells, 3.5 cm³ and 50 mm
 * to the side (a review). The nasal cavity and the pharynx lie on the head's middle plane, found as
 * the middle of the head's width where the air lies; where the scan does not show that width (the
 * head reaches the scan's side or the edge of its round field of view), the middle is not known and
 * nothing is said (checkAirwayPlace).
 */

/** Farthest the air space may lie from the head's middle plane (mm): the pharynx is 2-3 cm wide. */
const MAX_OFF_MIDDLE_MM = 10;

interface AirwayGrid extends VoxelDirections {
  dims: [number, number, number];
  spacing: [number, number, number];
}

/** The voxel axis nearest the patient's left-right axis (DICOM x), or null when it is the head-foot one. */
function leftRightAxis(g: VoxelDirections, headFoot: number): number | null {
  const x = [g.rowDir?.[0] ?? 1, g.colDir?.[0] ?? 0, g.sliceDir?.[0] ?? 0].map(Math.abs);
  const axis = x[0]! >= x[1]! && x[0]! >= x[2]! ? 0 : x[1]! >= x[2]! ? 1 : 2;
  return axis === headFoot ? null : axis;
}

/** The lowest and highest voxel index of a mask's voxels on each axis, or null for an empty mask. */
function extent(mask: Uint8Array, dims: [number, number, number]): { lo: number[]; hi: number[] } | null {
  const [nx, ny, nz] = dims;
  const lo = [nx, ny, nz];
  const hi = [-1, -1, -1];
  let p = 0;
  for (let k = 0; k < nz; k++)
    for (let j = 0; j < ny; j++)
      for (let i = 0; i < nx; i++, p++) {
        if (!mask[p]) continue;
        if (i < lo[0]!) lo[0] = i;
        if (i > hi[0]!) hi[0] = i;
        if (j < lo[1]!) lo[1] = j;
        if (j > hi[1]!) hi[1] = j;
        if (k < lo[2]!) lo[2] = k;
        if (k > hi[2]!) hi[2] = k;
      }
  return hi[0]! < 0 ? null : { lo, hi };
}

/**
 * Refuses an airway mask that lies to the side of the head's middle plane. `body` holds the voxels
 * denser than air, `pad` the padding outside the field of view (or null). The head is the tissue
 * joined to the air's walls at the air's height and depth, so an arm beside the head or a table
 * behind it does not move its middle (a review). Where the scan does not show that tissue's whole
 * width (it reaches the side of the scan or of its field of view: a dental field of view of 150 mm
 * cuts the cheeks, a head holder reaches the sides), the middle is not known and nothing is said:
 * refusing there refused the airway of the usual orthodontic scan (a review), while an ear's
 * mastoid cells, in a scan of the ear alone, are still taken for the airway.
 */
export function checkAirwayPlace(
  airway: Uint8Array,
  body: Uint8Array,
  pad: Uint8Array | null,
  g: AirwayGrid,
): void {
  const headFoot = headFootAxis(g);
  const lr = leftRightAxis(g, headFoot);
  const box = extent(airway, g.dims);
  if (lr === null || !box) return;
  const front = 3 - headFoot - lr;
  const head = tissueAround(airway, body, g.dims, box, [headFoot, front]);
  const [nx, ny] = g.dims;
  const step = [1, nx, nx * ny];
  const across = g.dims[lr]!;
  let left = across;
  let right = -1;
  for (const p of head) {
    const x = coordinate(p, lr, g.dims);
    if (x < left) left = x;
    if (x > right) right = x;
  }
  if (right < 0 || left === 0 || right === across - 1) return;
  // Its outermost voxels against the padding beyond a round field of view.
  const s = step[lr]!;
  if (pad)
    for (const p of head) {
      const x = coordinate(p, lr, g.dims);
      if ((x === left && pad[p - s]) || (x === right && pad[p + s])) return;
    }
  const middle = (left + right) / 2;
  const off = middle < box.lo[lr]! ? box.lo[lr]! - middle : middle > box.hi[lr]! ? middle - box.hi[lr]! : 0;
  const mm = off * g.spacing[lr]!;
  if (mm > MAX_OFF_MIDDLE_MM)
    throw new AppError(
      'bad-input',
      `The largest air space enclosed in this scan lies ${Math.round(mm)} mm to the side of the head's middle, where no airway runs: it is another air space (mastoid air cells, or a sinus), so no airway mesh was made.`,
      {
        action:
          'Ask for airway on a scan that shows the nasal cavity or the pharynx, or use a remote segmentation service.',
      },
    );
}

/** A voxel's index on one axis. */
function coordinate(p: number, axis: number, [nx, ny]: [number, number, number]): number {
  return axis === 0 ? p % nx : axis === 1 ? Math.floor(p / nx) % ny : Math.floor(p / (nx * ny));
}

/**
 * The body voxels joined (6-neighbours) to those next to the air, within the air's extent on the
 * `within` axes (its height and depth): the voxel indices.
 */
function tissueAround(
  airway: Uint8Array,
  body: Uint8Array,
  dims: [number, number, number],
  box: { lo: number[]; hi: number[] },
  within: number[],
): number[] {
  const [nx, ny] = dims;
  const step = [1, nx, nx * ny];
  const seen = new Uint8Array(airway.length);
  const inside = (p: number): boolean =>
    within.every((a) => {
      const c = coordinate(p, a, dims);
      return c >= box.lo[a]! && c <= box.hi[a]!;
    });
  const found: number[] = [];
  const stack: number[] = [];
  const reach = (q: number, c: number, a: number, d: number): void => {
    const next = c + d;
    if (next < 0 || next >= dims[a]!) return;
    const r = q + d * step[a]!;
    if (seen[r] || !body[r] || airway[r] || !inside(r)) return;
    seen[r] = 1;
    stack.push(r);
  };
  const spread = (q: number): void => {
    for (let a = 0; a < 3; a++) {
      const c = coordinate(q, a, dims);
      reach(q, c, a, -1);
      reach(q, c, a, 1);
    }
  };
  // Seeds: the tissue next to the air.
  for (let p = 0; p < airway.length; p++) if (airway[p]) spread(p);
  while (stack.length > 0) {
    const q = stack.pop()!;
    found.push(q);
    spread(q);
  }
  return found;
}
