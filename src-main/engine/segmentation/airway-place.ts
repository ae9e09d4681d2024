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

/**
 * Smallest share of the patient's left-right axis (DICOM x) that must lie in the planes across the
 * head-foot axis for widths in them to be widths across the head.
 */
const MIN_LEFT_RIGHT_IN_PLANE = 0.5;

interface AirwayGrid extends VoxelDirections {
  dims: [number, number, number];
  spacing: [number, number, number];
}

/**
 * The planes across the head-foot axis, and where their voxels lie across the patient: voxel `a`
 * along in-plane axis u, `b` along v, lies `a * lr[0] + b * lr[1]` mm along the patient's
 * left-right axis (DICOM x, projected into the plane) and `a * depth[0] + b * depth[1]` mm along the
 * plane's other direction. Measured along the voxel axes instead, the verdict followed the grid: the
 * back half of the real head CT exported on a grid turned 30-50° in-plane made an "airway" of one
 * ear's mastoid cells, refused on the grid as read (a review).
 */
interface PlaneAxes {
  headFoot: 0 | 1 | 2;
  u: number;
  v: number;
  lr: [number, number];
  depth: [number, number];
}

function planeAxes(g: AirwayGrid): PlaneAxes | null {
  const headFoot = headFootAxis(g);
  const dirs = [g.rowDir ?? [1, 0, 0], g.colDir ?? [0, 1, 0], g.sliceDir ?? [0, 0, 1]];
  const [u, v] = headFoot === 2 ? [0, 1] : headFoot === 1 ? [0, 2] : [1, 2];
  const xu = dirs[u]![0]!;
  const xv = dirs[v]![0]!;
  const norm = Math.hypot(xu, xv);
  if (!(norm >= MIN_LEFT_RIGHT_IN_PLANE)) return null;
  const [su, sv] = [g.spacing[u]!, g.spacing[v]!];
  return {
    headFoot,
    u,
    v,
    lr: [(su * xu) / norm, (sv * xv) / norm],
    depth: [(-su * xv) / norm, (sv * xu) / norm],
  };
}

/** The air's extent: head-foot planes (indices), left-right and depth (mm); null for an empty mask. */
interface AirExtent {
  h: [number, number];
  lr: [number, number];
  depth: [number, number];
}

function airExtent(mask: Uint8Array, dims: [number, number, number], ax: PlaneAxes): AirExtent | null {
  const [nx, ny, nz] = dims;
  const e: AirExtent = { h: [Infinity, -Infinity], lr: [Infinity, -Infinity], depth: [Infinity, -Infinity] };
  const widen = (r: [number, number], x: number): void => {
    if (x < r[0]) r[0] = x;
    if (x > r[1]) r[1] = x;
  };
  let p = 0;
  for (let k = 0; k < nz; k++)
    for (let j = 0; j < ny; j++)
      for (let i = 0; i < nx; i++, p++) {
        if (!mask[p]) continue;
        const c = [i, j, k];
        const [a, b] = [c[ax.u]!, c[ax.v]!];
        widen(e.h, c[ax.headFoot]!);
        widen(e.lr, a * ax.lr[0] + b * ax.lr[1]);
        widen(e.depth, a * ax.depth[0] + b * ax.depth[1]);
      }
  return e.h[1] < 0 ? null : e;
}

/**
 * Refuses an airway mask that lies to the side of the head's middle plane. `body` holds the voxels
 * denser than air, `pad` the padding outside the field of view (or null). The head is the tissue
 * joined to the air's walls at the air's height and depth, so an arm beside the head or a table
 * behind it does not move its middle (a review). Where the scan does not show that tissue's whole
 * width (it reaches the side of the scan or of its field of view: a dental field of view of 150 mm
 * cuts the cheeks, a head holder reaches the sides), the middle is not known and nothing is said:
 * refusing there refused the airway of the usual orthodontic scan (a review), while an ear's
 * mastoid cells, in a scan of the ear alone, are still taken for the airway. Widths and offsets are
 * along the patient's left-right axis, whatever the grid's angle in the plane; front and back are
 * not used (a fixture's header has the face at the back).
 */
export function checkAirwayPlace(
  airway: Uint8Array,
  body: Uint8Array,
  pad: Uint8Array | null,
  g: AirwayGrid,
): void {
  const ax = planeAxes(g);
  const air = ax && airExtent(airway, g.dims, ax);
  if (!ax || !air) return;
  const width = headWidth(airway, body, pad, g, ax, air);
  if (!width) return;
  const middle = (width[0] + width[1]) / 2;
  const mm = middle < air.lr[0] ? air.lr[0] - middle : middle > air.lr[1] ? middle - air.lr[1] : 0;
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
 * The head's extent across (lowest and highest left-right position, mm) at the airway's height and
 * depth: in each plane across the head-foot axis that holds air of the airway, the tissue joined
 * (4-neighbours, within the airway's depth) to the tissue next to that air. Null where it is not seen
 * whole: within a pixel of its extreme on either side it reaches the scan's side, or lies against
 * padding. One plane at a time, in buffers of a plane's size: a flood of the whole volume cost a
 * second on a 512 x 512 x 216 scan.
 */
function headWidth(
  airway: Uint8Array,
  body: Uint8Array,
  pad: Uint8Array | null,
  g: AirwayGrid,
  ax: PlaneAxes,
  air: AirExtent,
): [number, number] | null {
  const { dims } = g;
  const step = [1, dims[0], dims[0] * dims[1]];
  const [su, sv] = [step[ax.u]!, step[ax.v]!];
  const [nu, nv] = [dims[ax.u]!, dims[ax.v]!];
  // Half a pixel either side of the air's depth: on a grid along the patient's axes, the rows the
  // air lies in and no others; on a turned grid, a band the flood can pass along.
  const half = Math.max(g.spacing[ax.u]!, g.spacing[ax.v]!) / 2;
  const [d0, d1] = [air.depth[0] - half, air.depth[1] + half];
  const seen = new Uint8Array(nu * nv);
  const stack = new Int32Array(nu * nv);
  const lrOf = (a: number, b: number): number => a * ax.lr[0] + b * ax.lr[1];
  const inBand = (a: number, b: number): boolean => {
    const d = a * ax.depth[0] + b * ax.depth[1];
    return d > d0 && d < d1;
  };
  // The head's extent, and the extent of its voxels at the scan's side or against padding.
  let [left, right] = [Infinity, -Infinity];
  let [openLeft, openRight] = [Infinity, -Infinity];
  for (let h = air.h[0]; h <= air.h[1]; h++) {
    const base = h * step[ax.headFoot]!;
    seen.fill(0);
    let top = 0;
    const push = (a: number, b: number): void => {
      if (a < 0 || b < 0 || a >= nu || b >= nv) return;
      const q = a + b * nu;
      const p = base + a * su + b * sv;
      if (seen[q] || !body[p] || airway[p] || !inBand(a, b)) return;
      seen[q] = 1;
      stack[top++] = q;
    };
    // Seeds: the tissue next to this plane's air.
    for (let b = 0; b < nv; b++)
      for (let a = 0; a < nu; a++) {
        if (!airway[base + a * su + b * sv]) continue;
        push(a - 1, b);
        push(a + 1, b);
        push(a, b - 1);
        push(a, b + 1);
      }
    while (top > 0) {
      const q = stack[--top]!;
      const a = q % nu;
      const b = (q - a) / nu;
      const x = lrOf(a, b);
      if (x < left) left = x;
      if (x > right) right = x;
      const p = base + a * su + b * sv;
      const open =
        a === 0 ||
        b === 0 ||
        a === nu - 1 ||
        b === nv - 1 ||
        (pad !== null && (pad[p - su] === 1 || pad[p + su] === 1 || pad[p - sv] === 1 || pad[p + sv] === 1));
      if (open && x < openLeft) openLeft = x;
      if (open && x > openRight) openRight = x;
      push(a - 1, b);
      push(a + 1, b);
      push(a, b - 1);
      push(a, b + 1);
    }
  }
  if (right < left) return null;
  // Within a pixel's diagonal of the extreme: on a turned grid the voxel at the scan's side need not
  // be the extreme one.
  const pixel = Math.hypot(g.spacing[ax.u]!, g.spacing[ax.v]!);
  if (openLeft <= left + pixel || openRight >= right - pixel) return null;
  return [left, right];
}
