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
  const width = headWidth(airway, body, pad, g.dims, box, { headFoot, lr, front });
  if (!width) return;
  const { left, right } = width;
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

/**
 * The head's extent across (lowest and highest index on the `lr` axis) at the airway's height and
 * depth: in each plane across the head-foot axis that holds air of the airway, the tissue joined
 * (4-neighbours, within the airway's depth) to the tissue next to that air. Null where it is not seen
 * whole: it reaches the scan's side, or lies against padding there. One plane at a time, in buffers
 * of a plane's size: a flood of the whole volume cost a second on a 512 x 512 x 216 scan.
 */
function headWidth(
  airway: Uint8Array,
  body: Uint8Array,
  pad: Uint8Array | null,
  dims: [number, number, number],
  box: { lo: number[]; hi: number[] },
  axes: { headFoot: number; lr: number; front: number },
): { left: number; right: number } | null {
  const { headFoot, lr, front } = axes;
  const step = [1, dims[0], dims[0] * dims[1]];
  const sx = step[lr]!;
  const sy = step[front]!;
  const across = dims[lr]!;
  const [y0, y1] = [box.lo[front]!, box.hi[front]!];
  const rows = y1 - y0 + 1;
  // The plane's window: x across, y over the airway's depth; q = x + (y - y0) * across.
  const seen = new Uint8Array(across * rows);
  const stack = new Int32Array(across * rows);
  let left = across;
  let right = -1;
  // The lowest x of a head voxel with padding on its left, the highest with padding on its right.
  let padLeft = across;
  let padRight = -1;
  for (let h = box.lo[headFoot]!; h <= box.hi[headFoot]!; h++) {
    const base = h * step[headFoot]!;
    seen.fill(0);
    let top = 0;
    const push = (x: number, y: number): void => {
      const q = x + (y - y0) * across;
      const p = base + x * sx + y * sy;
      if (seen[q] || !body[p] || airway[p]) return;
      seen[q] = 1;
      stack[top++] = q;
    };
    // Seeds: the tissue next to this plane's air.
    for (let y = y0; y <= y1; y++)
      for (let x = 0; x < across; x++) {
        if (!airway[base + x * sx + y * sy]) continue;
        if (x > 0) push(x - 1, y);
        if (x < across - 1) push(x + 1, y);
        if (y > y0) push(x, y - 1);
        if (y < y1) push(x, y + 1);
      }
    while (top > 0) {
      const q = stack[--top]!;
      const x = q % across;
      const y = y0 + (q - x) / across;
      if (x < left) left = x;
      if (x > right) right = x;
      const p = base + x * sx + y * sy;
      if (pad && x > 0 && pad[p - sx] && x < padLeft) padLeft = x;
      if (pad && x < across - 1 && pad[p + sx] && x > padRight) padRight = x;
      if (x > 0) push(x - 1, y);
      if (x < across - 1) push(x + 1, y);
      if (y > y0) push(x, y - 1);
      if (y < y1) push(x, y + 1);
    }
  }
  if (right < 0 || left === 0 || right === across - 1 || padLeft === left || padRight === right) return null;
  return { left, right };
}
