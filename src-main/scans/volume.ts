/**
 * A scan volume in memory, as the volume reader produces it and the engine and preview consume it.
 *
 * Voxel (i, j, k) = column i, row j, slice k; `data[i + j * dims[0] + k * dims[0] * dims[1]]`.
 * Its centre in patient coordinates (DICOM LPS, millimetres) is
 *   origin + i * spacing[0] * rowDir + j * spacing[1] * colDir + k * spacing[2] * sliceDir
 * where rowDir is ImageOrientationPatient[0..2] (the direction in which the column index grows),
 * colDir is ImageOrientationPatient[3..5] (the direction in which the row index grows) and sliceDir
 * points from the first slice to the last (ordered along the slice normal). sliceDir is the line
 * through the slice positions, not the normal: under gantry tilt the two differ, and the volume is
 * sheared. Slice k lies k * spacing[2] mm along it from the first; an unevenly spaced series has been
 * interpolated onto that regular grid from each slice's true position (see stack-grid.ts).
 */
export interface Volume {
  /** Rescaled values (slope and intercept applied): Int16Array when they are integers within int16, else Float32Array. */
  data: Int16Array | Float32Array;
  /** [columns, rows, slices] */
  dims: [number, number, number];
  /** [column spacing, row spacing, slice spacing] in mm; note DICOM PixelSpacing is [row, column]. */
  spacing: [number, number, number];
  /** Patient position (mm) of voxel (0, 0, 0)'s centre. */
  origin: [number, number, number];
  rowDir: [number, number, number];
  colDir: [number, number, number];
  sliceDir: [number, number, number];
  /** True when the files state no pixel size: spacing is a 1 mm stand-in, the scan has no true scale. */
  scaleUnknown?: boolean;
  /** Modality of the source series ('CT', 'MR', ...), when known. */
  modality?: string;
  /** Rescale Type of the series (upper case), when stated: values are Hounsfield units only if 'HU'. */
  rescaleType?: string;
  /**
   * The values the files declare as padding outside the field of view (Pixel Padding Value and Range
   * Limit, rescaled as the voxels are), lowest first: not anatomy, neither air nor tissue.
   */
  padding?: [number, number];
  /**
   * Where the scan's own slices lie, as distances (mm) from plane 0 along the stack, when the volume
   * was rebuilt on an even grid between them (unevenly spaced slices): the planes between two slices
   * far apart show no more than those two.
   */
  sliceOffsets?: number[];
}
