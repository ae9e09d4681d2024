/**
 * The outside of a round field of view, found from where it lies rather than from its value. A CBCT
 * reconstructs a cylinder and may fill everything outside it with a value it declares nowhere, at
 * air's own level (-1000 in HU), which its noisy air takes here and there too. Taken as air, the
 * wall of a 60 mm field of view through the real head CT was 40-80 % of an accepted soft_tissue
 * surface. The cylinder is found as a circle fitted to where the planes across some axis hold other
 * values, which every plane must fill, with only the one value beyond it.
 */

export interface RoundField {
  /** The padding value. */
  value: number;
  /** The voxel axis the cylinder runs along: columns (0), rows (1) or slices (2). */
  axis: 0 | 1 | 2;
  /** The circle in the planes across `axis`, in mm from the first voxel (first in-plane axis first). */
  centreMm: [number, number];
  radiusMm: number;
}

/** Largest share of the box's edges along the axis that may hold another value than the padding. */
const EDGES_OTHER_MAX = 0.01;
/** Fewest points on the field of view's edge a circle is fitted to. */
const MIN_EDGE_POINTS = 16;
/** Smallest share of the edge points within ON_CIRCLE_PIXELS of the fitted circle. */
const ON_CIRCLE_MIN = 0.95;
/** How far from the circle, in pixels, its rim may lie. */
const EDGE_PIXELS = 1.5;
/**
 * How far from the circle, in pixels, its edge points may lie. A smoothed edge reaches past the
 * circle only where tissue met it (air clipped at the padding value blurs to itself): the real head
 * CT padded beyond 75 mm and smoothed three times (3 x 3 box) had no circle within 1.5 pixels.
 */
const ON_CIRCLE_PIXELS = 3;
/**
 * Smallest share of the voxels inside the circle that hold other values than the padding: a
 * cylinder is filled in every plane (air inside holds the padding value at a few voxels). A round
 * object in air of one value fills a cylinder's planes only partly (a ball: two thirds).
 */
const INSIDE_FILLED_MIN = 0.9;
/** Smallest share of the voxels beyond the circle that hold the padding value. */
const OUTSIDE_PADDING_MIN = 0.999;
/** Smallest share of the scan beyond the circle: an inscribed circle leaves a fifth of it. */
const OUTSIDE_MIN_SHARE = 0.05;

/** The planes across one axis: their size (nu x nv positions), pixel size (mm) and how many there are. */
interface Planes {
  axis: 0 | 1 | 2;
  nu: number;
  nv: number;
  su: number;
  sv: number;
  /** Planes along the axis. */
  n: number;
}

function planesAcross(
  axis: 0 | 1 | 2,
  dims: readonly [number, number, number],
  spacing: readonly number[],
): Planes {
  const [u, v] = axis === 0 ? [1, 2] : axis === 1 ? [0, 2] : [0, 1];
  return {
    axis,
    nu: dims[u]!,
    nv: dims[v]!,
    su: spacing[u]!,
    sv: spacing[v]!,
    n: dims[axis],
  };
}

/**
 * Calls `row(at, pos, step)` for every row of voxels along the columns: voxel `at + i` lies at
 * position `pos + i * step` of its plane.
 */
function forEachRow(
  dims: readonly [number, number, number],
  axis: 0 | 1 | 2,
  row: (at: number, pos: number, step: number) => void,
): void {
  const [nx, ny, nz] = dims;
  for (let k = 0; k < nz; k++)
    for (let j = 0; j < ny; j++) {
      const at = (k * ny + j) * nx;
      if (axis === 2) row(at, j * nx, 1);
      else if (axis === 1) row(at, k * nx, 1);
      else row(at, j + k * ny, 0);
    }
}

/**
 * The round field of view of a scan that declares no padding, or null: the padding value is the
 * first voxel's, held by the box's edges along the axis; a circle fits where the planes hold other
 * values (in at least half of them), fills every plane inside, and only the padding lies beyond
 * it. The slices' axis is tried first, then the others (a scan exported in sagittal planes).
 */
export function roundFieldPadding(
  data: Int16Array | Float32Array,
  dims: readonly [number, number, number],
  spacing: readonly number[],
): RoundField | null {
  if (data.length === 0 || !spacing.slice(0, 3).every((s) => Number.isFinite(s) && s > 0)) return null;
  for (const axis of [2, 0, 1] as const) {
    const found = alongAxis(data, dims, planesAcross(axis, dims, spacing));
    if (found) return found;
  }
  return null;
}

function alongAxis(
  data: Int16Array | Float32Array,
  dims: readonly [number, number, number],
  p: Planes,
): RoundField | null {
  const value = data[0] as number;
  if (p.nu < 3 || p.nv < 3 || !edgesHold(data, dims, p, value)) return null;
  // How many planes hold another value at each position.
  const other = new Int32Array(p.nu * p.nv);
  if (p.axis === 2) {
    // The usual stack of axial planes: one plane after the other, position by position.
    const plane = p.nu * p.nv;
    for (let o = 0; o < data.length; o += plane)
      for (let q = 0; q < plane; q++) if (data[o + q] !== value) other[q]!++;
  } else
    forEachRow(dims, p.axis, (at, pos, step) => {
      for (let i = 0; i < dims[0]; i++) if (data[at + i] !== value) other[pos + i * step]!++;
    });
  const circle = fitCircle(other, p);
  if (!circle) return null;
  const px = Math.max(p.su, p.sv);
  let insideVoxels = 0;
  let insideFilled = 0;
  let outsideVoxels = 0;
  let outsideOther = 0;
  for (let v = 0; v < p.nv; v++)
    for (let u = 0; u < p.nu; u++) {
      const d = Math.hypot(u * p.su - circle.x, v * p.sv - circle.y);
      const o = other[u + v * p.nu]!;
      if (d <= circle.r - EDGE_PIXELS * px) {
        insideVoxels += p.n;
        insideFilled += o;
      } else if (d >= circle.r + EDGE_PIXELS * px) {
        outsideVoxels += p.n;
        outsideOther += o;
      }
    }
  if (insideVoxels === 0 || insideFilled < INSIDE_FILLED_MIN * insideVoxels) return null;
  if (outsideVoxels < OUTSIDE_MIN_SHARE * data.length) return null;
  if (outsideVoxels - outsideOther < OUTSIDE_PADDING_MIN * outsideVoxels) return null;
  return { value, axis: p.axis, centreMm: [circle.x, circle.y], radiusMm: circle.r };
}

/** Whether the box's four edges along the axis hold `value` (all but EDGES_OTHER_MAX of them). */
function edgesHold(
  data: Int16Array | Float32Array,
  dims: readonly [number, number, number],
  p: Planes,
  value: number,
): boolean {
  const [nx, ny] = dims;
  const at = (u: number, v: number, w: number): number => {
    const c = p.axis === 0 ? [w, u, v] : p.axis === 1 ? [u, w, v] : [u, v, w];
    return c[0]! + nx * (c[1]! + ny * c[2]!);
  };
  let other = 0;
  for (let w = 0; w < p.n; w++)
    for (const [u, v] of [
      [0, 0],
      [p.nu - 1, 0],
      [0, p.nv - 1],
      [p.nu - 1, p.nv - 1],
    ] as const)
      if (data[at(u, v, w)] !== value) other++;
  return other <= EDGES_OTHER_MAX * 4 * p.n;
}

/**
 * The circle through the edge of the positions most planes fill (held by at least half of them),
 * fitted by least squares (Kåsa's fit: exact for points on a circle, an arc's too), in mm; null when
 * there are too few edge points or they do not lie on it. Edge points on the box's faces are where
 * the box cuts the field of view, not its edge, and are left out.
 */
function fitCircle(other: Int32Array, p: Planes): { x: number; y: number; r: number } | null {
  const half = p.n / 2;
  const filled = (u: number, v: number): boolean => other[u + v * p.nu]! >= half;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let v = 1; v < p.nv - 1; v++)
    for (let u = 1; u < p.nu - 1; u++)
      if (filled(u, v) && !(filled(u - 1, v) && filled(u + 1, v) && filled(u, v - 1) && filled(u, v + 1))) {
        xs.push(u * p.su);
        ys.push(v * p.sv);
      }
  const n = xs.length;
  if (n < MIN_EDGE_POINTS) return null;
  // Centred on the points' mean, for a well-conditioned system.
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let suu = 0;
  let svv = 0;
  let suv = 0;
  let suuu = 0;
  let svvv = 0;
  let suvv = 0;
  let svuu = 0;
  for (let k = 0; k < n; k++) {
    const u = xs[k]! - mx;
    const v = ys[k]! - my;
    suu += u * u;
    svv += v * v;
    suv += u * v;
    suuu += u * u * u;
    svvv += v * v * v;
    suvv += u * v * v;
    svuu += v * u * u;
  }
  const det = suu * svv - suv * suv;
  if (!(Math.abs(det) > 1e-12)) return null;
  const bu = (suuu + suvv) / 2;
  const bv = (svvv + svuu) / 2;
  const cu = (bu * svv - bv * suv) / det;
  const cv = (bv * suu - bu * suv) / det;
  const r = Math.sqrt(cu * cu + cv * cv + (suu + svv) / n);
  const x = cu + mx;
  const y = cv + my;
  const px = Math.max(p.su, p.sv);
  let on = 0;
  for (let k = 0; k < n; k++)
    if (Math.abs(Math.hypot(xs[k]! - x, ys[k]! - y) - r) <= ON_CIRCLE_PIXELS * px) on++;
  return on >= ON_CIRCLE_MIN * n ? { x, y, r } : null;
}

/**
 * One byte per voxel, 1 where a voxel holding the padding value lies at the circle's rim or beyond
 * (from EDGE_PIXELS inside it: the fitted circle runs through the last filled positions, and tissue
 * there must meet the padding next to it). Inside, the value is air's.
 */
export function roundFieldMask(
  data: Int16Array | Float32Array,
  dims: readonly [number, number, number],
  spacing: readonly number[],
  field: RoundField,
): Uint8Array {
  const p = planesAcross(field.axis, dims, spacing);
  const from = field.radiusMm - EDGE_PIXELS * Math.max(p.su, p.sv);
  const [cx, cy] = field.centreMm;
  const rim = new Uint8Array(p.nu * p.nv);
  for (let v = 0; v < p.nv; v++)
    for (let u = 0; u < p.nu; u++)
      rim[u + v * p.nu] = Math.hypot(u * p.su - cx, v * p.sv - cy) >= from ? 1 : 0;
  const mask = new Uint8Array(data.length);
  const value = field.value;
  forEachRow(dims, field.axis, (at, pos, step) => {
    for (let i = 0; i < dims[0]; i++)
      mask[at + i] = data[at + i] === value && rim[pos + i * step] === 1 ? 1 : 0;
  });
  return mask;
}
