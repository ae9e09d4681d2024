/**
 * Builds the picture over several animation frames, a batch of chunks (or of parts of one) at a
 * time (see draw-batches.ts), each batch drawn over what the earlier ones left. On a GPU the
 * batches go straight to the canvas, whose drawing buffer is kept between frames
 * (preserveDrawingBuffer) and cleared only by a picture's first batch. A software renderer draws
 * them off screen and the canvas shows the picture when it is done (offscreen-picture.ts). Any
 * change to what is shown starts the picture again.
 */
import type { Object3D, PerspectiveCamera, Scene, WebGLRenderer } from 'three';
import { GPU_UPLOAD_TRIANGLES, nextBatch } from './draw-batches.js';
import type { DrawCursor, DrawItem } from './draw-batches.js';
import type { ViewerMesh } from './mesh-object.js';
import { OFFSCREEN_BATCH_TRIANGLES, OffscreenTarget, offscreenAction } from './offscreen-picture.js';

interface StepResult {
  /** The canvas shows the whole picture. */
  complete: boolean;
  /** The longest render call of the picture so far (buffer uploads and draw calls). */
  longestMs: number;
}

interface Pass {
  id: number;
  items: DrawItem[];
  next: DrawCursor;
  /** A batch of it was drawn, and cleared the target first. */
  cleared: boolean;
  longestMs: number;
  startedAt: number;
  /** Off screen: how many of its batches are done, and whether the canvas shows it whole. */
  batchesDone: number;
  shown: boolean;
  /** Triangles of the picture, and how many were handed over. */
  total: number;
  issued: number;
}

/** A picture to build from `items`; `drawn`: one already drawn whole (by full()), nothing to add. */
function newPass(id: number, items: DrawItem[], drawn: boolean): Pass {
  return {
    id,
    items,
    next: { item: 0, offset: 0 },
    cleared: drawn,
    longestMs: 0,
    startedAt: performance.now(),
    batchesDone: 0,
    shown: drawn,
    total: items.reduce((n, it) => n + it.triangles, 0),
    issued: 0,
  };
}

/**
 * Every batch of the pass was drawn (on a GPU) or handed to the rasteriser (off screen). At least
 * one batch is, even with nothing to draw: the first clears what the last picture left.
 */
const allIssued = (pass: Pass): boolean => pass.cleared && pass.next.item >= pass.items.length;

export class ProgressiveDraw {
  private pass: Pass | null = null;
  private passes = 0;
  private dirty = true;
  /** Software only: the target the picture is built in. */
  private readonly offscreen: OffscreenTarget | null;
  /** Software only: a fence after each batch handed over, until it is done. */
  private fences: { pass: number; sync: WebGLSync }[] = [];
  /** When the canvas last showed a picture. */
  private shownAt = 0;

  constructor(
    private readonly renderer: WebGLRenderer,
    private readonly scene: Scene,
    private readonly camera: PerspectiveCamera,
    /** Drawn on top, with the last batch. */
    private readonly overlay: Object3D,
    software: boolean,
  ) {
    // Its target (8-bit sRGB) is a colour target of every WebGL 2 context, software ones included.
    this.offscreen = software ? new OffscreenTarget(renderer) : null;
  }

  /** Something shown changed: the next step starts the picture again. */
  restart(): void {
    this.dirty = true;
  }

  /** The target shaders must be compiled for (software), or null for the canvas. */
  get target(): OffscreenTarget | null {
    return this.offscreen;
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
      this.pass = newPass(++this.passes, items, false);
      this.dirty = false;
    }
    const pass = this.pass;
    if (!this.offscreen) {
      this.drawBatch(order, pass, GPU_UPLOAD_TRIANGLES, false);
      return { complete: allIssued(pass), longestMs: pass.longestMs };
    }
    return this.stepOffscreen(order, pass, this.offscreen);
  }

  private stepOffscreen(order: readonly ViewerMesh[], pass: Pass, offscreen: OffscreenTarget): StepResult {
    if (pass.shown) return { complete: true, longestMs: pass.longestMs };
    const gl = this.renderer.getContext() as WebGL2RenderingContext;
    // Fences report done only between tasks (once per frame here), never by waiting.
    this.fences = this.fences.filter((f) => {
      if (gl.getSyncParameter(f.sync, gl.SYNC_STATUS) !== gl.SIGNALED) return true;
      gl.deleteSync(f.sync);
      if (f.pass === pass.id) pass.batchesDone++;
      return false;
    });
    const now = performance.now();
    const action = offscreenAction({
      pending: this.fences.length,
      issuedAll: allIssued(pass),
      issuedFraction: pass.total > 0 ? pass.issued / pass.total : 1,
      batchesDone: pass.batchesDone,
      sinceShownMs: now - Math.max(this.shownAt, pass.startedAt),
    });
    if (action === 'wait') return { complete: false, longestMs: pass.longestMs };
    if (action === 'present' || action === 'present-complete') {
      offscreen.present();
      this.shownAt = now;
      pass.shown = action === 'present-complete';
      return { complete: pass.shown, longestMs: pass.longestMs };
    }
    offscreen.drawInto(() => this.drawBatch(order, pass, OFFSCREEN_BATCH_TRIANGLES, true));
    const sync = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0);
    if (sync) this.fences.push({ pass: pass.id, sync });
    // To the GPU process now: it rasterises while this thread goes on.
    gl.flush();
    return { complete: false, longestMs: pass.longestMs };
  }

  /** Draws the pass's next batch into the bound target. */
  private drawBatch(order: readonly ViewerMesh[], pass: Pass, budget: number, software: boolean): void {
    const { parts, next } = nextBatch(pass.items, pass.next, budget, software);
    const last = next.item >= pass.items.length;
    for (const p of parts) pass.issued += p.count;
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
    } finally {
      for (const m of order) m.drawOnly(null, true);
      this.overlay.visible = true;
      this.renderer.autoClear = true;
    }
    pass.longestMs = Math.max(pass.longestMs, performance.now() - started);
    for (const p of parts) order[p.mesh]!.uploaded[p.chunk] = true;
    pass.next = next;
  }

  /** The whole picture in one render call, however long it takes (screenshots). */
  full(meshes: Iterable<ViewerMesh>): void {
    if (this.offscreen) {
      this.offscreen.drawInto(() => this.renderer.render(this.scene, this.camera));
      this.offscreen.present();
    } else {
      this.renderer.render(this.scene, this.camera);
    }
    for (const m of meshes) m.uploaded.fill(true);
    this.dirty = false;
    this.pass = newPass(++this.passes, [], true);
  }

  dispose(): void {
    const gl = this.renderer.getContext() as WebGL2RenderingContext;
    for (const f of this.fences) gl.deleteSync(f.sync);
    this.fences = [];
    this.offscreen?.dispose();
  }
}
