/**
 * Which chunks each animation frame draws. A frame that draws or uploads a whole large mesh
 * blocks the main thread: with a software renderer (SwiftShader, and any machine without a
 * usable GPU) the compositor reads the canvas back when it commits each frame and so waits for
 * every triangle of the frame to be rasterised, and on any GPU the first draw of a chunk uploads
 * its buffers. So a full picture is built over several frames, each adding a batch of chunks on
 * top of the last (the drawing buffer is preserved between frames), within a triangle budget per
 * frame. A software renderer's speed depends on the machine and on what else runs on it, so its
 * budget follows the frames actually measured.
 */

/** Triangles the first software frame may rasterise: one chunk, 10-20 ms on one slow core. */
export const SOFTWARE_FRAME_TRIANGLES = 16_384;
/** Triangles a frame may upload to a GPU (drawing what is already uploaded costs next to nothing). */
export const GPU_UPLOAD_TRIANGLES = 131_072;
/** What a software frame should take, commit included: well under the 50 ms of a long task. */
export const SOFTWARE_FRAME_TARGET_MS = 30;
const MIN_SOFTWARE_TRIANGLES = 4_096;
const MAX_SOFTWARE_TRIANGLES = 262_144;

export interface DrawItem {
  /** Index of the mesh in drawing order, and of the chunk within it. */
  mesh: number;
  chunk: number;
  triangles: number;
  /** Its buffers are on the GPU already. */
  uploaded: boolean;
}

/**
 * Where the batch starting at `from` ends (exclusive): it holds at least one item, and more while
 * their cost stays within the budget. Software rendering pays for every triangle drawn; a GPU
 * only for triangles not uploaded yet.
 */
export function batchEnd(
  items: readonly DrawItem[],
  from: number,
  budget: number,
  software: boolean,
): number {
  let cost = 0;
  let end = from;
  while (end < items.length) {
    const item = items[end]!;
    const c = software || !item.uploaded ? item.triangles : 0;
    if (end > from && cost + c > budget) break;
    cost += c;
    end++;
  }
  return end;
}

/**
 * The next software budget from the last frame: it drew `triangles` and the next frame began
 * `frameMs` later (that interval holds the compositor's wait for the rasteriser). Scaled towards
 * the target frame time, at most halved or doubled at a time, so one slow frame (the machine
 * busy for a moment) does not swing it.
 */
export function nextSoftwareBudget(current: number, triangles: number, frameMs: number): number {
  if (!(frameMs > 0) || triangles <= 0) return current;
  const scaled = (triangles * SOFTWARE_FRAME_TARGET_MS) / frameMs;
  const bounded = Math.min(current * 2, Math.max(current / 2, scaled));
  return Math.round(Math.min(MAX_SOFTWARE_TRIANGLES, Math.max(MIN_SOFTWARE_TRIANGLES, bounded)));
}
