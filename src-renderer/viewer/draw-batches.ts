/**
 * Which chunks each batch of a picture draws. On a GPU, the first draw of a chunk uploads its
 * buffers, and a frame that uploads a whole large mesh blocks the main thread: a picture is built
 * over several frames, each adding a batch of chunks on top of the last (the drawing buffer is
 * preserved between frames). A software renderer pays for every triangle it rasterises, not only
 * for uploads: its batches (drawn off screen, offscreen-picture.ts) hold a number of triangles,
 * down to parts of a chunk.
 */

/** Triangles a frame may upload to a GPU (drawing what is already uploaded costs next to nothing). */
export const GPU_UPLOAD_TRIANGLES = 131_072;
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
