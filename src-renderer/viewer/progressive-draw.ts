/**
 * Builds the picture over several animation frames, a batch of chunks (or of parts of one) per
 * frame (see draw-batches.ts), each frame drawing over what the earlier ones left: the renderer
 * keeps its drawing buffer (preserveDrawingBuffer) and only the first frame of a picture clears
 * it. Any change to what is shown starts the picture again.
 */
import type { Object3D, PerspectiveCamera, Scene, WebGLRenderer } from 'three';
import {
  GPU_UPLOAD_TRIANGLES,
  SOFTWARE_FRAME_TRIANGLES,
  nextBatch,
  nextSoftwareBudget,
} from './draw-batches.js';
import type { DrawCursor, DrawItem } from './draw-batches.js';
import type { ViewerMesh } from './mesh-object.js';

interface StepResult {
  /** This frame finished the picture. */
  complete: boolean;
  /** The longest render call of the picture so far (buffer uploads and draw calls). */
  longestMs: number;
}

export class ProgressiveDraw {
  /** The picture under way: its items, the next one to draw, and whether a frame of it cleared the canvas. */
  private pass: { items: DrawItem[]; next: DrawCursor; cleared: boolean; longestMs: number } | null = null;
  private dirty = true;
  /** Software frames: triangles per frame, following the frames measured (draw-batches.ts). */
  private budget = SOFTWARE_FRAME_TRIANGLES;
  /** Triangles the last step drew, when the picture went on: the next frame shows them. */
  private previous: number | null = null;

  constructor(
    private readonly renderer: WebGLRenderer,
    private readonly scene: Scene,
    private readonly camera: PerspectiveCamera,
    /** Drawn on top, with the last batch. */
    private readonly overlay: Object3D,
    private readonly software: boolean,
  ) {}

  /** Something shown changed: the next step starts the picture again. */
  restart(): void {
    this.dirty = true;
  }

  /**
   * Draws the next batch of the meshes, given in drawing order (opaque before see-through).
   * `frameMs`: how long the frame that showed the last batch held the main thread, if known.
   */
  step(order: readonly ViewerMesh[], frameMs: number | null = null): StepResult {
    if (this.software && this.previous !== null && frameMs !== null) {
      this.budget = nextSoftwareBudget(this.budget, this.previous, frameMs);
    }
    this.previous = null;
    if (this.dirty || !this.pass) {
      const items = order.flatMap((m, k) =>
        Array.from({ length: m.chunkCount }, (_, c) => ({
          mesh: k,
          chunk: c,
          triangles: m.chunkTriangles(c),
          uploaded: m.uploaded[c]!,
        })),
      );
      this.pass = { items, next: { item: 0, offset: 0 }, cleared: false, longestMs: 0 };
      this.dirty = false;
    }
    const pass = this.pass;
    const budget = this.software ? this.budget : GPU_UPLOAD_TRIANGLES;
    const { parts, next } = nextBatch(pass.items, pass.next, budget, this.software);
    const last = next.item >= pass.items.length;
    order.forEach((m, k) => {
      const mine = new Map(parts.filter((p) => p.mesh === k).map((p) => [p.chunk, p]));
      // The cap goes with the end of the mesh's last chunk: by then its stencil passes are all drawn.
      const endsMesh = [...mine.values()].some(
        (p) => p.chunk === m.chunkCount - 1 && p.first + p.count === m.chunkTriangles(p.chunk),
      );
      m.drawOnly(mine, endsMesh);
    });
    this.overlay.visible = last;
    this.renderer.autoClear = !pass.cleared;
    pass.cleared = true;
    const started = performance.now();
    try {
      this.renderer.render(this.scene, this.camera);
      // To the GPU process now, not at the next frame's commit: it rasterises while the page idles.
      if (this.software) this.renderer.getContext().flush();
    } finally {
      for (const m of order) m.drawOnly(null, true);
      this.overlay.visible = true;
      this.renderer.autoClear = true;
    }
    pass.longestMs = Math.max(pass.longestMs, performance.now() - started);
    for (const p of parts) order[p.mesh]!.uploaded[p.chunk] = true;
    pass.next = next;
    if (!last) this.previous = parts.reduce((n, p) => n + p.count, 0);
    return { complete: last, longestMs: pass.longestMs };
  }

  /** The whole picture in one render call, however long it takes (screenshots). */
  full(meshes: Iterable<ViewerMesh>): void {
    this.renderer.render(this.scene, this.camera);
    for (const m of meshes) m.uploaded.fill(true);
    this.pass = { items: [], next: { item: 0, offset: 0 }, cleared: true, longestMs: 0 };
    this.previous = null;
    this.dirty = false;
  }
}
