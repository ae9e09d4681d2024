/**
 * Pure geometry of the slice views: patient points (DICOM LPS, mm) to a view's pixels and back,
 * patient points to voxel indices, and the orientation letters of a view's edges. Everything is
 * derived from the geometry the core sends with each slice, never assumed from the plane's name.
 */
import type { SlicePlane, SlicePreview } from '../../src-shared/scans';

export type Vec3 = [number, number, number];
export type SliceGeometry = SlicePreview['geometry'];
type VolumeGrid = SlicePreview['grid'];

const dot = (a: readonly number[], b: readonly number[]): number =>
  a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
const sub = (a: readonly number[], b: readonly number[]): Vec3 => [
  a[0]! - b[0]!,
  a[1]! - b[1]!,
  a[2]! - b[2]!,
];
export const cross = (a: readonly number[], b: readonly number[]): Vec3 => [
  a[1]! * b[2]! - a[2]! * b[1]!,
  a[2]! * b[0]! - a[0]! * b[2]!,
  a[0]! * b[1]! - a[1]! * b[0]!,
];

/** Patient position of the centre of pixel (u, v); fractional pixels are fine. */
export function pixelToPatient(g: SliceGeometry, u: number, v: number): Vec3 {
  return [0, 1, 2].map((a) => g.origin[a]! + u * g.column[a]! + v * g.row[a]!) as Vec3;
}

/**
 * The pixel (u, v) a patient point falls on when projected onto the view's plane. Column and row
 * steps need not be orthogonal (a tilted gantry shears the stack), so this solves the 2x2 system.
 */
export function patientToPixel(g: SliceGeometry, p: readonly number[]): [number, number] {
  const d = sub(p, g.origin);
  const cc = dot(g.column, g.column);
  const rr = dot(g.row, g.row);
  const cr = dot(g.column, g.row);
  const dc = dot(d, g.column);
  const dr = dot(d, g.row);
  const det = cc * rr - cr * cr;
  if (Math.abs(det) < 1e-12) return [0, 0];
  return [(dc * rr - dr * cr) / det, (dr * cc - dc * cr) / det];
}

/** The plane of a view: a point on it and its unit normal. */
export function viewPlane(g: SliceGeometry): { point: Vec3; normal: Vec3 } {
  const n = cross(g.column, g.row);
  const len = Math.hypot(...n) || 1;
  return { point: [...g.origin] as Vec3, normal: [n[0] / len, n[1] / len, n[2] / len] };
}

/** Fractional voxel indices (i, j, k) of a patient point (Cramer's rule on the grid's steps). */
export function patientToVoxel(grid: VolumeGrid, p: readonly number[]): Vec3 {
  const [a, b, c] = grid.steps;
  const d = sub(p, grid.origin);
  const det = (x: readonly number[], y: readonly number[], z: readonly number[]): number =>
    dot(x, cross(y, z));
  const D = det(a, b, c) || 1;
  return [det(d, b, c) / D, det(a, d, c) / D, det(a, b, d) / D];
}

export function voxelToPatient(grid: VolumeGrid, v: readonly number[]): Vec3 {
  const [a, b, c] = grid.steps;
  return [0, 1, 2].map((x) => grid.origin[x]! + v[0]! * a[x]! + v[1]! * b[x]! + v[2]! * c[x]!) as Vec3;
}

/** Which voxel index a plane's slice number is: axial slices are k, coronal j, sagittal i. */
export const PLANE_AXIS: Record<SlicePlane, 0 | 1 | 2> = { sagittal: 0, coronal: 1, axial: 2 };

/**
 * The LPS letters a direction points to: +x is the patient's Left, +y Posterior, +z Superior.
 * The main axis first, then any other that carries at least a third of the direction (oblique views
 * read "LP", as in OHIF and Slicer).
 */
export function directionLetters(d: readonly number[]): string {
  const len = Math.hypot(d[0]!, d[1]!, d[2]!) || 1;
  const parts = [0, 1, 2]
    .map((a) => ({ a, w: d[a]! / len }))
    .filter((x) => Math.abs(x.w) >= 0.34)
    .sort((x, y) => Math.abs(y.w) - Math.abs(x.w));
  const names = [
    ['R', 'L'],
    ['A', 'P'],
    ['I', 'S'],
  ] as const;
  return parts.map((x) => names[x.a]![x.w > 0 ? 1 : 0]).join('');
}

/** The letters on a view's four edges: where screen right, left, down and up point in the patient. */
export function edgeLetters(g: SliceGeometry): { left: string; right: string; top: string; bottom: string } {
  const neg = (v: readonly number[]): Vec3 => [-v[0]!, -v[1]!, -v[2]!];
  return {
    right: directionLetters(g.column),
    left: directionLetters(neg(g.column)),
    bottom: directionLetters(g.row),
    top: directionLetters(neg(g.row)),
  };
}

/** Size of one pixel on screen along columns and rows, in mm. */
export function pixelSizeMm(g: SliceGeometry): [number, number] {
  return [Math.hypot(...g.column), Math.hypot(...g.row)];
}

/**
 * A round scale-bar length (1, 2 or 5 times a power of ten, in mm) that fills at most `maxPx`
 * screen pixels at `mmPerPx`.
 */
export function scaleBarLength(mmPerPx: number, maxPx: number): { mm: number; px: number } {
  const limit = mmPerPx * maxPx;
  let best = 1;
  for (let p = 0.01; p <= 1e4; p *= 10) {
    for (const m of [1, 2, 5]) if (p * m <= limit) best = p * m;
  }
  const mm = Number(best.toPrecision(1));
  return { mm, px: mm / mmPerPx };
}
