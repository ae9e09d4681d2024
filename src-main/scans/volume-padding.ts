/**
 * The declared padding (Pixel Padding Value and Range Limit, header-padding.ts) as voxel values of
 * the volume. Padding is declared in stored values, and each frame maps its stored values through
 * its own Rescale Slope and Intercept: a series whose slices differ in them (or in the padding they
 * declare) holds its padding at a different voxel value in each. Taken through the first frame's
 * alone, the others' padding was read as grey values far below air, and their field-of-view edge as
 * no edge. Every frame's padding is written as the volume's one padding range instead.
 */
import type { FrameRef } from './slice-layout.js';

export type VoxelRange = [number, number];

/** The volume's padding range, and the frames whose own mapped padding is elsewhere (by index). */
export interface VolumePadding {
  range: VoxelRange;
  /** Frame index to that frame's own padding range in voxel values, for frames that differ. */
  moved: Map<number, VoxelRange>;
}

/**
 * A frame's declared padding as voxel values: through its Rescale Slope and Intercept, truncated as
 * writeStored truncates into int16 (or rounded to float32). Undefined when it declares none.
 */
function framePadding(ref: FrameRef, asInt16: boolean): VoxelRange | undefined {
  const stored = ref.header.pixelPadding;
  if (!stored) return undefined;
  const { slope, intercept } = ref.info;
  const [a, b] = stored.map((v) =>
    asInt16 ? Math.trunc(v * slope + intercept) : Math.fround(v * slope + intercept),
  );
  return [Math.min(a!, b!), Math.max(a!, b!)];
}

/**
 * The volume's padding: the first declaring frame's range, with every frame whose own range differs
 * (another slope, intercept or padding value) listed to be moved onto it. Undefined when no frame
 * declares padding.
 */
export function volumePadding(frames: readonly FrameRef[], asInt16: boolean): VolumePadding | undefined {
  let range: VoxelRange | undefined;
  const moved = new Map<number, VoxelRange>();
  for (const [k, ref] of frames.entries()) {
    const own = framePadding(ref, asInt16);
    if (!own) continue;
    if (!range) range = own;
    else if (own[0] !== range[0] || own[1] !== range[1]) moved.set(k, own);
  }
  return range && { range, moved };
}

/**
 * Writes the voxels of one plane that lie in its frame's own padding range as the volume's padding
 * (its lowest value): after the plane's values are in place, so it holds for every way of writing them.
 */
export function movePadding(
  out: Int16Array | Float32Array,
  at: number,
  count: number,
  own: VoxelRange,
  to: number,
): void {
  const [lo, hi] = own;
  for (let i = at; i < at + count; i++) {
    const v = out[i] as number;
    if (v >= lo && v <= hi) out[i] = to;
  }
}
