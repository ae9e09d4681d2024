/**
 * The patient's head-foot axis (DICOM z) in a volume's voxel grid. A scan may be exported in any
 * plane: the axial planes a head is filled in, and the band its teeth must lie in, follow the
 * patient, not the slices.
 */

/** How a volume's voxel axes lie in the patient; axial slices when the directions are not known. */
export interface VoxelDirections {
  rowDir?: readonly number[];
  colDir?: readonly number[];
  sliceDir?: readonly number[];
}

export interface HeadFootGeometry extends VoxelDirections {
  dims: [number, number, number];
  spacing: [number, number, number];
}

/**
 * The voxel axis closest to the patient's head-foot axis: columns (0), rows (1) or slices (2).
 * Slices when the directions are not known.
 */
export function headFootAxis(g: VoxelDirections): 0 | 1 | 2 {
  const z = [g.rowDir?.[2] ?? 0, g.colDir?.[2] ?? 0, g.sliceDir?.[2] ?? 1].map(Math.abs);
  return z[2]! >= z[0]! && z[2]! >= z[1]! ? 2 : z[1]! >= z[0]! ? 1 : 0;
}

/**
 * The angle (degrees) between the planes perpendicular to headFootAxis and the patient's axial plane:
 * 0 for axial, coronal or sagittal exports, the tilt of a tilted gantry's slices, more for an
 * oblique export.
 */
export function axialPlaneTilt(g: VoxelDirections): number {
  const r = g.rowDir ?? [1, 0, 0];
  const c = g.colDir ?? [0, 1, 0];
  const s = g.sliceDir ?? [0, 0, 1];
  const axis = headFootAxis(g);
  const [u, v] = axis === 2 ? [r, c] : axis === 1 ? [r, s] : [c, s];
  const n = [u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!];
  const length = Math.hypot(n[0]!, n[1]!, n[2]!);
  if (!(length > 0)) return 0;
  return (Math.acos(Math.min(1, Math.abs(n[2]!) / length)) * 180) / Math.PI;
}

/**
 * Head-foot offset (mm) of one step along each voxel axis, the lowest offset in the volume (so that
 * `j * dj + k * dk + i * di - lo` is a voxel's height above the volume's lowest point), and the
 * volume's height along that axis.
 */
export function headFootSteps(g: HeadFootGeometry): {
  di: number;
  dj: number;
  dk: number;
  lo: number;
  height: number;
} {
  const [nx, ny, nz] = g.dims;
  const di = g.spacing[0] * (g.rowDir?.[2] ?? 0);
  const dj = g.spacing[1] * (g.colDir?.[2] ?? 0);
  const dk = g.spacing[2] * (g.sliceDir?.[2] ?? 1);
  const height = Math.abs(di) * nx + Math.abs(dj) * ny + Math.abs(dk) * nz;
  const lo = Math.min(0, di * nx) + Math.min(0, dj * ny) + Math.min(0, dk * nz);
  return { di, dj, dk, lo, height };
}
