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
