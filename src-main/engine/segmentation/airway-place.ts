import { AppError } from '../../../src-shared/errors.js';
import { headFootAxis, type VoxelDirections } from './head-foot.js';

/**
 * Where an airway can be: on the middle of the head. The airway is the largest air space tissue
 * encloses; in a scan without the pharynx or the nasal cavity that is another one, and a crop of the
 * real head CT around one temporal bone made an "airway" of its mastoid air cells, 3.5 cm³ and 50 mm
 * to the side (a review). The nasal cavity and the pharynx lie on the head's middle plane, found as
 * the middle of the head's width where the air lies; where the scan does not show that width (the
 * head reaches the scan's side or the edge of its round field of view), the middle is not known and
 * the air cannot be shown to be the airway.
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
 * Refuses an airway mask that is not on the head's middle plane, or whose scan does not show the
 * head's width where it lies. `body` holds the voxels denser than air, `pad` the padding outside the
 * field of view (or null).
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
  const [nx, ny] = g.dims;
  const step = [1, nx, nx * ny];
  const across = g.dims[lr]!;
  // The head across, at the airway's height and depth (not the table behind the head, which may be
  // wider than the scan).
  const visit = (f: (p: number, x: number) => void): void => {
    for (let h = box.lo[headFoot]!; h <= box.hi[headFoot]!; h++)
      for (let d = box.lo[front]!; d <= box.hi[front]!; d++) {
        const row = h * step[headFoot]! + d * step[front]!;
        for (let x = 0; x < across; x++) {
          const p = row + x * step[lr]!;
          if (body[p]) f(p, x);
        }
      }
  };
  let left = across;
  let right = -1;
  visit((_, x) => {
    if (x < left) left = x;
    if (x > right) right = x;
  });
  if (right < 0) return;
  // Its outermost voxels against the scan's side, or the padding beyond a round field of view.
  let cut = left === 0 || right === across - 1;
  const s = step[lr]!;
  if (!cut && pad)
    visit((p, x) => {
      if ((x === left && pad[p - s]) || (x === right && pad[p + s])) cut = true;
    });
  const action =
    'Ask for airway on a scan that shows the nasal cavity or the pharynx with the whole width of the head, or use a remote segmentation service.';
  if (cut)
    throw new AppError(
      'bad-input',
      "The scan does not show the head's full width where its largest enclosed air space lies (the head reaches the side of the scan or of its field of view), so that air cannot be shown to be the airway rather than another air space (mastoid air cells, a sinus); no airway mesh was made.",
      { action },
    );
  const middle = (left + right) / 2;
  const off = middle < box.lo[lr]! ? box.lo[lr]! - middle : middle > box.hi[lr]! ? middle - box.hi[lr]! : 0;
  const mm = off * g.spacing[lr]!;
  if (mm > MAX_OFF_MIDDLE_MM)
    throw new AppError(
      'bad-input',
      `The largest air space enclosed in this scan lies ${Math.round(mm)} mm to the side of the head's middle, where no airway runs (mastoid air cells, or a sinus): the scan does not hold the nasal cavity or the pharynx, so no airway mesh was made.`,
      { action },
    );
}
