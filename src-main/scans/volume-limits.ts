/**
 * Bytes one volume may take, whatever its samples: 3 GB is 1.5 billion voxels as int16 (or 750 million
 * as float32), far beyond any dental CBCT. The bytes are bounded, not the voxels: a scan whose rescale
 * slope is not an integer is read as floats, twice the memory of the same voxels as int16. One bound
 * for the volume reader (which refuses before it allocates) and the fitness check (so that inspect and
 * the app say so before anything is sent).
 */
export const MAX_VOLUME_BYTES = 3e9;

/** What the volume's size depends on: a slice layout's planes, their size, and their rescale. */
interface VolumeShape {
  rows: number;
  columns: number;
  stack: { count: number };
  frames: readonly { info: { slope: number; intercept: number } }[];
}

/** Rounded up: a scan just over the limit must not read as needing the limit. */
const gigabytes = (bytes: number): string => `${Math.ceil(bytes / 1e8) / 10} GB`;

/** Whether every frame's rescale keeps whole numbers: the volume is then int16, else float32. */
export function int16Fits(layout: Pick<VolumeShape, 'frames'>): boolean {
  for (const f of layout.frames) {
    const { slope, intercept } = f.info;
    if (!Number.isInteger(slope) || !Number.isInteger(intercept)) return false;
  }
  return true;
}

/** Why the volume of this layout is too large to read, in words; undefined when it is not. */
export function volumeTooLarge(layout: VolumeShape, asInt16 = int16Fits(layout)): string | undefined {
  const sample = asInt16 ? 2 : 4;
  const bytes = layout.rows * layout.columns * layout.stack.count * sample;
  if (bytes <= MAX_VOLUME_BYTES) return undefined;
  // A review's 0.08 mm CBCT was refused with the size alone, though only its slope made it 4 bytes.
  const why = asInt16
    ? ''
    : `, since its Rescale Slope or Intercept (${fractionalRescale(layout)}) is not a whole number and its values are kept as fractions`;
  return `This scan would need ${gigabytes(bytes)} of memory as a volume (${layout.columns} x ${layout.rows} x ${layout.stack.count} voxels of ${sample} bytes each${why}); the most scan2mesh reads is ${gigabytes(MAX_VOLUME_BYTES)}. Export it again with a smaller field of view, or voxels coarser by a quarter or more, to stay under that.`;
}

/** The first rescale that is not whole numbers, as "slope 0.6667, intercept -1024". */
function fractionalRescale(layout: Pick<VolumeShape, 'frames'>): string {
  const f = layout.frames.find((x) => !Number.isInteger(x.info.slope) || !Number.isInteger(x.info.intercept));
  return f ? `slope ${f.info.slope}, intercept ${f.info.intercept}` : '';
}
