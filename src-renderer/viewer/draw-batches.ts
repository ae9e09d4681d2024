/**
 * Which chunks each animation frame draws. A frame that draws or uploads a whole large mesh
 * blocks the main thread: with a software renderer (SwiftShader, and any machine without a
 * usable GPU) the browser waits for every triangle to be rasterised before the frame is shown,
 * and on any GPU the first draw of a chunk uploads its buffers. So a full picture is built over
 * several frames, each adding a batch of chunks on top of the last (the drawing buffer is
 * preserved between frames), within a triangle budget per frame.
 */

/** Triangles a frame may rasterise with a software renderer: about 20-40 ms on one slow core. */
export const SOFTWARE_FRAME_TRIANGLES = 32_768;
/** Triangles a frame may upload to a GPU (drawing what is already uploaded costs next to nothing). */
export const GPU_UPLOAD_TRIANGLES = 131_072;

export interface DrawItem {
  /** Index of the mesh in drawing order, and of the chunk within it. */
  mesh: number;
  chunk: number;
  triangles: number;
  /** Its buffers are on the GPU already. */
  uploaded: boolean;
}

/**
 * Splits the items (in drawing order) into consecutive batches: each holds at least one item,
 * and more while their cost stays within the budget. Software rendering pays for every triangle
 * drawn; a GPU only for triangles not uploaded yet.
 */
export function planBatches(items: readonly DrawItem[], software: boolean): DrawItem[][] {
  const budget = software ? SOFTWARE_FRAME_TRIANGLES : GPU_UPLOAD_TRIANGLES;
  const batches: DrawItem[][] = [];
  let batch: DrawItem[] = [];
  let cost = 0;
  for (const item of items) {
    const c = software || !item.uploaded ? item.triangles : 0;
    if (batch.length > 0 && cost + c > budget) {
      batches.push(batch);
      batch = [];
      cost = 0;
    }
    batch.push(item);
    cost += c;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
