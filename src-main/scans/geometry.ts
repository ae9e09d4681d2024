import type { Vec3 } from './header-fields.js';

export function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

export function dot(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

export function sub(a: Vec3, b: Vec3): Vec3 {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}

export function norm(a: Vec3): number {
  return Math.hypot(a[0], a[1], a[2]);
}

export function normalize(a: Vec3): Vec3 {
  const n = norm(a);
  return n > 0 ? [a[0] / n, a[1] / n, a[2] / n] : [0, 0, 0];
}

/** Row and column directions of an ImageOrientationPatient, normalised (files often round them). */
export function directions(o: readonly number[]): { row: Vec3; col: Vec3; normal: Vec3 } {
  const row = normalize([o[0] ?? 1, o[1] ?? 0, o[2] ?? 0]);
  const col = normalize([o[3] ?? 0, o[4] ?? 1, o[5] ?? 0]);
  return { row, col, normal: normalize(cross(row, col)) };
}

/**
 * Whether an ImageOrientationPatient gives two real directions: each of length 1 and at right
 * angles to the other, within `tol` (files write the cosines rounded to a few digits; 0.001 is far
 * beyond that rounding). Anything else (all zeros, a vector of length 2, two parallel directions)
 * places no slice anywhere: it is not normalised into a guess.
 */
export function isValidOrientation(o: readonly number[], tol = 1e-3): boolean {
  if (o.length < 6 || o.some((v) => !Number.isFinite(v))) return false;
  const row: Vec3 = [o[0]!, o[1]!, o[2]!];
  const col: Vec3 = [o[3]!, o[4]!, o[5]!];
  return Math.abs(norm(row) - 1) <= tol && Math.abs(norm(col) - 1) <= tol && Math.abs(dot(row, col)) <= tol;
}

/** True when two orientations differ by less than `tol` in every cosine (0.001 is about 0.06 degrees). */
export function sameOrientation(a: readonly number[], b: readonly number[], tol = 1e-3): boolean {
  for (let i = 0; i < 6; i++) if (Math.abs((a[i] ?? 0) - (b[i] ?? 0)) > tol) return false;
  return true;
}

/** A plain-words name for the plane an orientation shows: axial, coronal, sagittal or oblique. */
export function planeName(o: readonly number[]): 'axial' | 'coronal' | 'sagittal' | 'oblique' {
  const { normal } = directions(o);
  const ax = normal.map(Math.abs) as Vec3;
  const max = Math.max(...ax);
  if (max < 0.9) return 'oblique';
  if (ax[2] === max) return 'axial';
  if (ax[1] === max) return 'coronal';
  return 'sagittal';
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
