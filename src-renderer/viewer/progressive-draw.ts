/**
 * Builds the picture over several animation frames, a batch of chunks per frame (see
 * draw-batches.ts), each frame drawing over what the earlier ones left: the renderer keeps its
 * drawing buffer (preserveDrawingBuffer) and only the first frame of a picture clears it.
 * Any change to what is shown starts the picture again.
 */
import type { Object3D, PerspectiveCamera, Scene, WebGLRenderer } from 'three';
import { planBatches } from './draw-batches.js';
import type { DrawItem } from './draw-batches.js';
import type { ViewerMesh } from './mesh-object.js';

export interface StepResult {
  /** This frame finished the picture. */
  complete: boolean;
  /** The longest render call of the picture so far (buffer uploads and draw calls). */
  longestMs: number;
}

export class ProgressiveDraw {
  private pass: { batches: DrawItem[][]; next: number; longestMs: number } | null = null;
  private dirty = true;

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
    if (this.dirty || !this.pass) {
      const items = order.flatMap((m, k) =>
        Array.from({ length: m.chunkCount }, (_, c) => ({
          mesh: k,
          chunk: c,
          triangles: m.chunkTriangles(c),
          uploaded: m.uploaded[c]!,
        })),
      );
      this.pass = { batches: planBatches(items, this.software), next: 0, longestMs: 0 };
      this.dirty = false;
    }
    const pass = this.pass;
    const batch = pass.batches[pass.next] ?? [];
    const last = pass.next >= pass.batches.length - 1;
    order.forEach((m, k) => {
      const mine = batch.filter((i) => i.mesh === k);
      // The cap goes with the mesh's last chunk: by then its stencil passes are all drawn.
      m.drawOnly(
        new Set(mine.map((i) => i.chunk)),
        mine.some((i) => i.chunk === m.chunkCount - 1),
      );
    });
    this.overlay.visible = last;
    this.renderer.autoClear = pass.next === 0;
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
    pass.next++;
    return { complete: last, longestMs: pass.longestMs };
  }

  /** The whole picture in one render call, however long it takes (screenshots). */
  full(meshes: Iterable<ViewerMesh>): void {
    this.renderer.render(this.scene, this.camera);
    for (const m of meshes) m.uploaded.fill(true);
    this.pass = { batches: [], next: 1, longestMs: 0 };
    this.dirty = false;
  }
}
