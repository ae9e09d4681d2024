/**
 * Which chunks each animation frame draws. A frame that draws or uploads a whole large mesh
 * blocks the main thread: with a software renderer (SwiftShader, and any machine without a
 * usable GPU) the compositor reads the canvas back when it commits each frame and so waits for
 * the frame's triangles to be rasterised, and on any GPU the first draw of a chunk uploads its
 * buffers. So a full picture is built over several frames, each adding a batch of chunks on top
 * of the last (the drawing buffer is preserved between frames), within a triangle budget per
 * frame. A software renderer's speed depends on the machine and on what else runs on it, so its
 * budget follows the frames actually measured (frame-pacer.ts), down to parts of a chunk.
 */

/**
 * Triangles the first software frame may rasterise: a quarter of a chunk, as few as any frame
 * draws. Nothing is known yet of how fast this machine draws, and the frame that first shows a
 * mesh also lays out the panels that list it.
 */
export const SOFTWARE_FRAME_TRIANGLES = 4_096;
/** Triangles a frame may upload to a GPU (drawing what is already uploaded costs next to nothing). */
export const GPU_UPLOAD_TRIANGLES = 131_072;
/**
 * How long the frame that shows a software batch should hold the main thread (its read-back
 * waiting for the raster included): well under the 50 ms of a long task, with room for a machine
 * that slows down between two frames.
 */
export const SOFTWARE_FRAME_TARGET_MS = 25;
const MIN_SOFTWARE_TRIANGLES = SOFTWARE_FRAME_TRIANGLES;
const MAX_SOFTWARE_TRIANGLES = 262_144;
/** A software batch ends with part of a chunk only when that part is worth its draw call. */
const MIN_PART_TRIANGLES = 1_024;

export interface DrawItem {
  /** Index of the mesh in drawing order, and of the chunk within it. */
  mesh: number;
  chunk: number;
  triangles: number;
  /** Its buffers are on the GPU already. */
  uploaded: boolean;
}

/** What one frame draws of a chunk: its triangles from `first` (chunk order), `count` of them. */
export interface DrawPart {
  mesh: number;
  chunk: number;
  first: number;
  count: number;
}

/** Where the next batch starts: an item, and how many of its triangles earlier batches drew. */
export interface DrawCursor {
  item: number;
  offset: number;
}

/**
 * The batch of one frame from `from`, and where the next one starts. A GPU pays only for
 * triangles not uploaded yet, whole chunks at a time (a chunk's buffers go up whole at its first
 * draw); a batch holds at least one chunk. A software renderer pays for every triangle drawn,
 * so its batch fills the budget and may end, or consist of, part of a chunk: one chunk can hold
 * more triangles than a slow machine rasterises within a frame.
 */
export function nextBatch(
  items: readonly DrawItem[],
  from: DrawCursor,
  budget: number,
  software: boolean,
): { parts: DrawPart[]; next: DrawCursor } {
  const parts: DrawPart[] = [];
  let cost = 0;
  let { item, offset } = from;
  while (item < items.length) {
    const it = items[item]!;
    const left = it.triangles - offset;
    const c = software || !it.uploaded ? left : 0;
    if (cost + c <= budget || (!software && parts.length === 0)) {
      parts.push({ mesh: it.mesh, chunk: it.chunk, first: offset, count: left });
      cost += c;
      item++;
      offset = 0;
      continue;
    }
    if (!software) break;
    // Part of the item fills the batch; a sliver too thin for its draw call waits for the next frame.
    const room = budget - cost;
    if (parts.length > 0 && room < MIN_PART_TRIANGLES) break;
    const count = Math.min(left, Math.max(room, MIN_PART_TRIANGLES));
    parts.push({ mesh: it.mesh, chunk: it.chunk, first: offset, count });
    if (count < left) offset += count;
    else {
      item++;
      offset = 0;
    }
    break;
  }
  return { parts, next: { item, offset } };
}

/**
 * The next software budget from the last batch: it held `triangles`, and the frame that showed it
 * held the main thread `frameMs` (mostly the read-back's wait for what the rasteriser had not
 * finished before the frame began). Scaled towards the target, at most halved or doubled at a
 * time, so one slow frame (the machine busy for a moment) does not swing it.
 */
export function nextSoftwareBudget(current: number, triangles: number, frameMs: number): number {
  if (!(frameMs > 0) || triangles <= 0) return current;
  const scaled = (triangles * SOFTWARE_FRAME_TARGET_MS) / frameMs;
  const bounded = Math.min(current * 2, Math.max(current / 2, scaled));
  return Math.round(Math.min(MAX_SOFTWARE_TRIANGLES, Math.max(MIN_SOFTWARE_TRIANGLES, bounded)));
}
