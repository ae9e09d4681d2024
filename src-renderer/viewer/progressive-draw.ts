/**
 * Builds the picture over several animation frames, a batch of chunks per frame (see
 * draw-batches.ts), each frame drawing over what the earlier ones left: the renderer keeps its
 * drawing buffer (preserveDrawingBuffer) and only the first frame of a picture clears it.
 * Any change to what is shown starts the picture again.
 */
import type { Object3D, PerspectiveCamera, Scene, WebGLRenderer } from 'three';
import {
  GPU_UPLOAD_TRIANGLES,
  SOFTWARE_FRAME_TRIANGLES,
  batchEnd,
  nextSoftwareBudget,
} from './draw-batches.js';
import type { DrawItem } from './draw-batches.js';
import type { ViewerMesh } from './mesh-object.js';

interface StepResult {
  /** This frame finished the picture. */
  complete: boolean;
  /** The longest render call of the picture so far (buffer uploads and draw calls). */
  longestMs: number;
}

const IDLE_GAP_MS = 250;

export class ProgressiveDraw {
  /** The picture under way: its items, the next one to draw, and whether a frame of it cleared the canvas. */
  private pass: { items: DrawItem[]; next: number; cleared: boolean; longestMs: number } | null = null;
  private dirty = true;
  /** Software frames: triangles per frame, following the frames measured (draw-batches.ts). */
  private budget = SOFTWARE_FRAME_TRIANGLES;
  /** The last step, when another frame followed it at once: its start and triangles drawn. */
  private previous: { at: number; triangles: number } | null = null;

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

  /** Draws the next batch of the meshes, given in drawing order (opaque before see-through). */
  step(order: readonly ViewerMesh[]): StepResult {
    const now = performance.now();
    // This frame began one frame after the last batch: the interval holds its cost. A longer gap
    // means frames stopped in between (the view hidden or idle) and tells nothing.
    if (this.software && this.previous && now - this.previous.at < IDLE_GAP_MS) {
      this.budget = nextSoftwareBudget(this.budget, this.previous.triangles, now - this.previous.at);
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
      this.pass = { items, next: 0, cleared: false, longestMs: 0 };
      this.dirty = false;
    }
    const pass = this.pass;
    const budget = this.software ? this.budget : GPU_UPLOAD_TRIANGLES;
    const end = batchEnd(pass.items, pass.next, budget, this.software);
    const batch = pass.items.slice(pass.next, end);
    const last = end >= pass.items.length;
    order.forEach((m, k) => {
      const mine = batch.filter((i) => i.mesh === k);
      // The cap goes with the mesh's last chunk: by then its stencil passes are all drawn.
      m.drawOnly(
        new Set(mine.map((i) => i.chunk)),
        mine.some((i) => i.chunk === m.chunkCount - 1),
      );
    });
    this.overlay.visible = last;
    this.renderer.autoClear = !pass.cleared;
    pass.cleared = true;
    const started = performance.now();
    try {
      this.renderer.render(this.scene, this.camera);
    } finally {
      for (const m of order) m.drawOnly(null, true);
      this.overlay.visible = true;
      this.renderer.autoClear = true;
    }
    pass.longestMs = Math.max(pass.longestMs, performance.now() - started);
    for (const i of batch) order[i.mesh]!.uploaded[i.chunk] = true;
    pass.next = end;
    if (!last) this.previous = { at: now, triangles: batch.reduce((n, i) => n + i.triangles, 0) };
    return { complete: last, longestMs: pass.longestMs };
  }

  /** The whole picture in one render call, however long it takes (screenshots). */
  full(meshes: Iterable<ViewerMesh>): void {
    this.renderer.render(this.scene, this.camera);
    for (const m of meshes) m.uploaded.fill(true);
    this.pass = { items: [], next: 0, cleared: true, longestMs: 0 };
    this.previous = null;
    this.dirty = false;
  }
}
