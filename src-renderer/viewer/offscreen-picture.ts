/**
 * The picture of a software renderer, built off screen. A software rasteriser (SwiftShader, and any
 * machine without a usable GPU) draws in the GPU process, and the compositor reads the canvas
 * back at the end of every frame that drew on it: drawn into the canvas, each batch of triangles
 * holds the main thread until it is rasterised, so a big mesh had to go a few thousand triangles
 * per frame, and the frames themselves (about 15 ms each) came to cost as much as the triangles.
 * Drawn into a render target of its own, a batch holds nothing: the frames go on while the GPU
 * process rasterises. A fence after each batch says when it is done, and the picture is copied
 * to the canvas (one quad) once all of it is, or every PRESENT_EVERY_MS while a large one builds.
 */
import {
  Mesh,
  MeshBasicMaterial,
  NearestFilter,
  NoBlending,
  OrthographicCamera,
  PlaneGeometry,
  SRGBColorSpace,
  Scene,
  UnsignedByteType,
  Vector2,
  WebGLRenderTarget,
} from 'three';
import type { WebGLRenderer } from 'three';
import { nextFrame } from './frame-pacer.js';

/** Triangles per batch: a few milliseconds of the main thread (buffer uploads, draw calls). */
export const OFFSCREEN_BATCH_TRIANGLES = 32_768;
/**
 * Batches handed to the rasteriser and not yet done, at most: enough to keep it busy between two
 * checks of the fences (once per frame), few enough that a new picture (the camera moved) waits
 * behind little work already under way.
 */
export const MAX_IN_FLIGHT = 3;
/** A picture still building is shown this often, so a very large mesh shows its progress... */
export const PRESENT_EVERY_MS = 1000;
/** ... unless this much of it is handed over already: the rest is about to follow. */
const PRESENT_BEFORE_ISSUED = 0.75;

export type OffscreenAction = 'issue' | 'wait' | 'present' | 'present-complete';

/**
 * What the picture does at a step. `pending`: batches not done yet (of any picture); `issuedAll`:
 * every batch of the current picture was handed over, `issuedFraction` of its triangles;
 * `batchesDone`: of the current picture's, done; `sinceShownMs`: since the canvas last showed
 * this picture (or since it began). A picture is copied to the canvas only when nothing is
 * pending: the copy would otherwise wait behind the pending batches, and the frame's read-back
 * behind the copy.
 */
export function offscreenAction(s: {
  pending: number;
  issuedAll: boolean;
  issuedFraction: number;
  batchesDone: number;
  sinceShownMs: number;
}): OffscreenAction {
  const showProgress = s.sinceShownMs >= PRESENT_EVERY_MS && s.issuedFraction < PRESENT_BEFORE_ISSUED;
  if (s.pending === 0) {
    if (s.issuedAll) return 'present-complete';
    if (s.batchesDone > 0 && showProgress) return 'present';
    return 'issue';
  }
  // Drained before a present; otherwise a batch more while the rasteriser has room.
  if (s.issuedAll || s.pending >= MAX_IN_FLIGHT || showProgress) return 'wait';
  return 'issue';
}

/** The render target a software picture is drawn into, and the quad that copies it to the canvas. */
export class OffscreenTarget {
  /**
   * 8-bit sRGB (SRGB8_ALPHA8): the surfaces are lit in linear light and the target encodes them as it
   * stores them, with the precision of the screen's own 8 bits where the eye needs it (the darks),
   * and the copy decodes them as it samples. Half floats gave the same picture (no pixel of the
   * skull's differed by more than 1 in 255) at twice the bytes per pixel, and SwiftShader drew the
   * 400k skull into them no faster (medians of 8 interleaved loads: 705 ms for half floats, 642 ms
   * for this; single loads spread over some 150 ms on a 2-core machine). SRGB8_ALPHA8 is also a
   * colour target of every WebGL 2, where half floats need an extension.
   */
  readonly target = new WebGLRenderTarget(1, 1, {
    type: UnsignedByteType,
    colorSpace: SRGBColorSpace,
    depthBuffer: true,
    // Caps on clipped meshes are drawn where a stencil pass marks the cut.
    stencilBuffer: true,
    minFilter: NearestFilter,
    magFilter: NearestFilter,
    generateMipmaps: false,
  });
  private readonly copyScene = new Scene();
  private readonly copyCamera = new OrthographicCamera(-1, 1, 1, -1, 0, 1);
  private readonly copyMaterial = new MeshBasicMaterial({
    map: this.target.texture,
    toneMapped: false,
    depthTest: false,
    depthWrite: false,
    blending: NoBlending,
  });
  private readonly quad = new Mesh(new PlaneGeometry(2, 2), this.copyMaterial);
  private readonly size = new Vector2();

  constructor(private readonly renderer: WebGLRenderer) {
    this.quad.frustumCulled = false;
    this.copyScene.add(this.quad);
  }

  /** Draws into the target from now on, sized as the canvas's drawing buffer. */
  bind(): void {
    this.renderer.getDrawingBufferSize(this.size);
    if (this.target.width !== this.size.x || this.target.height !== this.size.y)
      this.target.setSize(this.size.x, this.size.y);
    this.renderer.setRenderTarget(this.target);
  }

  /** Runs `draw` into the target, and leaves the canvas bound again. */
  drawInto(draw: () => void): void {
    this.bind();
    try {
      draw();
    } finally {
      this.renderer.setRenderTarget(null);
    }
  }

  /** Copies the picture to the canvas (every pixel of it: no clear needed). */
  present(): void {
    const r = this.renderer;
    r.setRenderTarget(null);
    const autoClear = r.autoClear;
    r.autoClear = false;
    try {
      r.render(this.copyScene, this.copyCamera);
    } finally {
      r.autoClear = autoClear;
    }
  }

  dispose(): void {
    this.target.dispose();
    this.quad.geometry.dispose();
    this.copyMaterial.dispose();
  }
}

/**
 * Resolves once the GPU process has run every command issued so far, or when `stopped()`: a fence,
 * checked once per animation frame, so this thread never waits in a call.
 */
export async function gpuCaughtUp(renderer: WebGLRenderer, stopped: () => boolean): Promise<void> {
  const gl = renderer.getContext() as WebGL2RenderingContext;
  const sync = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0);
  if (!sync) return;
  gl.flush();
  try {
    while (!stopped() && !gl.isContextLost() && gl.getSyncParameter(sync, gl.SYNC_STATUS) !== gl.SIGNALED)
      await nextFrame();
  } finally {
    gl.deleteSync(sync);
  }
}
