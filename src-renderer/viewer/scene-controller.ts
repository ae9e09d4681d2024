import { Box3, Color, PerspectiveCamera, Plane, Scene, Sphere, Vector2, Vector3 } from 'three';
import type { Group, Material, Mesh, WebGLRenderer } from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { FramePacer } from './frame-pacer.js';
import { isSoftwareRenderer } from './gpu-info.js';
import { MeasureOverlay } from './measure-overlay.js';
import { attachSlicePlanes } from '../review/slice-planes-3d.js';
import { ProgressiveDraw } from './progressive-draw.js';
import type { Measurement } from './measurements.js';
import type { ChunkedMesh } from './mesh-chunks.js';
import { ViewerMesh } from './mesh-object.js';
import { warmUpObjects, warmUpShaders } from './shader-warm-up.js';
import type { MeshAppearance } from './mesh-object.js';
import { SurfacePicker, raycastPick } from './surface-picker.js';
import { fitDepthRange, placeCamera } from './camera-framing.js';
import { addLights, createRenderer } from './scene-setup.js';
import { cameraDirection, WORLD_UP } from './standard-views.js';
import type { StandardView, Vec3 } from './standard-views.js';
import type { ClipState } from './viewer-store.js';

export type { MeshAppearance } from './mesh-object.js';

interface SceneCallbacks {
  /** After each drawn frame, with the camera's view matrix (for the orientation marker). */
  onFrame?(viewMatrix: ArrayLike<number>): void;
  /**
   * The first frame that shows the whole mesh was drawn; renderMs is the longest render call
   * while its chunks went to the GPU (buffer upload and draw calls).
   */
  onFirstDrawn?(id: string, renderMs: number): void;
  /** A point on a visible surface was clicked while measuring. */
  onPick?(point: Vec3): void;
  /** The WebGL context was lost (GPU reset or out of GPU memory). */
  onContextLost?(): void;
}

const FOV_DEGREES = 30;

/**
 * The three.js side of the viewer: one renderer, camera, orbit controls and the meshes. It draws
 * on demand only (after a change), which keeps an idle viewer at zero GPU load and makes every
 * drawn frame deterministic for pixel tests.
 */
export class SceneController {
  readonly renderer: WebGLRenderer;
  private readonly scene = new Scene();
  private readonly camera = new PerspectiveCamera(FOV_DEGREES, 1, 0.1, 10_000);
  private readonly controls: OrbitControls;
  private readonly meshes = new Map<string, ViewerMesh>();
  private readonly clipPlane = new Plane(new Vector3(0, 0, -1), 0);
  private readonly overlay = new MeasureOverlay();
  /** The scan check's slice planes through the meshes (review/slice-planes-3d). */
  private readonly detachSlicePlanes = attachSlicePlanes(this.scene, () => this.requestRender());
  private measurements: { list: readonly Measurement[]; pending: Vec3 | null } = { list: [], pending: null };
  /** Shader programs compiled ahead; chunks wait for them so no frame compiles in a long task. */
  private readonly warmUp: Group;
  private warmedUp = false;
  /** The picture, built a batch of chunks at a time. */
  private readonly draw: ProgressiveDraw;
  private readonly resizeObserver: ResizeObserver;
  private readonly picker: SurfacePicker;
  private readonly frames: FramePacer;
  private addedCount = 0;
  private wireframe = false;
  private clipping = false;
  private measuring = false;
  private cameraMovedByUser = false;
  private pointerDown: { x: number; y: number } | null = null;
  private disposed = false;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly callbacks: SceneCallbacks = {},
  ) {
    this.renderer = createRenderer(canvas);
    this.picker = new SurfacePicker(this.renderer);
    this.camera.up.set(...WORLD_UP);
    this.camera.position.set(0, -500, 0);
    addLights(this.scene, this.camera);
    this.scene.add(this.overlay.group);
    this.draw = new ProgressiveDraw(
      this.renderer,
      this.scene,
      this.camera,
      this.overlay.group,
      isSoftwareRenderer(),
    );
    this.frames = new FramePacer(() => this.render());
    this.warmUp = warmUpObjects(this.clipPlane);

    this.controls = new OrbitControls(this.camera, canvas);
    this.controls.enableDamping = false;
    this.controls.zoomToCursor = true;
    this.controls.addEventListener('change', () => this.requestRender());
    this.controls.addEventListener('start', () => {
      this.cameraMovedByUser = true;
    });

    canvas.addEventListener('pointerdown', this.onPointerDown);
    canvas.addEventListener('pointerup', this.onPointerUp);
    canvas.addEventListener('webglcontextlost', this.onContextLost);
    this.resizeObserver = new ResizeObserver(() => this.resize());
    this.resizeObserver.observe(canvas.parentElement ?? canvas);
    this.resize();
    void warmUpShaders(
      this.renderer,
      this.scene,
      this.camera,
      this.warmUp,
      this.draw.target,
      () => this.disposed,
    ).then(() => {
      // Meshes that arrived during the warm-up were held back (render() waits for it).
      this.warmedUp = true;
      // For tests and benches: the viewer draws a mesh's first frame without building pipelines.
      this.canvas.dataset.ready = 'true';
      this.requestRender();
    });
  }

  setBackground(cssColour: string): void {
    this.renderer.setClearColor(new Color(cssColour), 1);
    this.requestRender();
  }

  hasMesh(id: string): boolean {
    return this.meshes.has(id);
  }

  meshIds(): string[] {
    return [...this.meshes.keys()];
  }

  /** Adds a mesh; its chunks go to the GPU a batch at a time, so a large mesh never blocks the window. */
  addMesh(id: string, data: ChunkedMesh, look: MeshAppearance): void {
    if (this.meshes.has(id)) return;
    // See-through meshes are drawn in the order they came.
    const m = new ViewerMesh(id, data, this.addedCount++);
    m.setWireframe(this.wireframe);
    m.setAppearance(look);
    m.setClip(this.clipping ? this.clipPlane : null);
    this.meshes.set(id, m);
    this.scene.add(m.root);
    // Job outputs arrive one by one: keep framing them all until the user takes the camera.
    if (!this.cameraMovedByUser || this.meshes.size === 1) this.fit();
    this.requestRender();
    // Off screen, a batch waits for no frame: the rasteriser starts on the mesh now, once the rest
    // of this change of the view is applied (a batch drawn before a change that restarts the
    // picture would hold up the rasteriser for nothing).
    if (this.draw.target) queueMicrotask(() => this.render());
  }

  removeMesh(id: string): void {
    const m = this.meshes.get(id);
    if (!m) return;
    this.scene.remove(m.root);
    m.dispose();
    this.meshes.delete(id);
    if (this.meshes.size === 0) this.cameraMovedByUser = false;
    this.requestRender();
  }

  setAppearance(id: string, look: MeshAppearance): void {
    this.meshes.get(id)?.setAppearance(look);
    this.requestRender();
  }

  setWireframe(on: boolean): void {
    this.wireframe = on;
    for (const m of this.meshes.values()) m.setWireframe(on);
    this.requestRender();
  }

  /** One plane across an axis at `position` mm; the part on the chosen side is cut away to look inside. */
  setClip(clip: ClipState & { position: number }): void {
    const wasClipping = this.clipping;
    const was = this.clipPlane.clone();
    this.clipping = clip.enabled;
    const normal = new Vector3(
      clip.axis === 'x' ? 1 : 0,
      clip.axis === 'y' ? 1 : 0,
      clip.axis === 'z' ? 1 : 0,
    );
    // three keeps what lies on the positive side of the plane: n.p + c >= 0.
    if (clip.flip) this.clipPlane.set(normal, -clip.position);
    else this.clipPlane.set(normal.negate(), clip.position);
    // The plane follows the meshes as they come even while clipping is off: then nothing drawn
    // changes, and the picture under way (a large mesh's first) must not start again.
    const unchanged = wasClipping === this.clipping && (!this.clipping || this.clipPlane.equals(was));
    if (unchanged) return;
    for (const m of this.meshes.values()) m.setClip(this.clipping ? this.clipPlane : null);
    this.requestRender();
  }

  setMeasuring(on: boolean): void {
    this.measuring = on;
    this.canvas.style.cursor = on ? 'crosshair' : '';
  }

  /** Draws the kept measurements and the first point of one under way, on top of the surfaces. */
  setMeasurements(list: readonly Measurement[], pending: Vec3 | null): void {
    this.measurements = { list, pending };
    this.drawMeasurements();
  }

  private drawMeasurements(): void {
    const r = this.sceneSphere()?.radius ?? 50;
    this.overlay.show(this.measurements.list, this.measurements.pending, r * 0.008);
    this.requestRender();
  }

  private visibleMeshes(): ViewerMesh[] {
    return [...this.meshes.values()].filter((m) => m.visible);
  }

  private sceneBox(): Box3 | null {
    const shown = this.visibleMeshes();
    const list = shown.length > 0 ? shown : [...this.meshes.values()];
    if (list.length === 0) return null;
    const box = new Box3();
    for (const m of list) box.union(m.box);
    return box;
  }

  private sceneSphere(): Sphere | null {
    return this.sceneBox()?.getBoundingSphere(new Sphere()) ?? null;
  }

  /** Frames the visible meshes, keeping the current viewing direction. */
  fit(): void {
    const box = this.sceneBox();
    if (!box) return;
    const dir = this.camera.position.clone().sub(this.controls.target);
    if (dir.lengthSq() === 0) dir.set(0, -1, 0);
    placeCamera(this.camera, this.controls, box, dir.normalize());
    this.requestRender();
  }

  setView(view: StandardView): void {
    const box =
      this.sceneBox() ??
      new Box3().setFromCenterAndSize(this.controls.target.clone(), new Vector3(100, 100, 100));
    placeCamera(this.camera, this.controls, box, new Vector3(...cameraDirection(view)));
    this.requestRender();
  }

  rotate(leftRadians: number, upRadians: number): void {
    this.cameraMovedByUser = true;
    this.controls.rotateLeft(leftRadians);
    this.controls.rotateUp(upRadians);
  }

  pan(dxPixels: number, dyPixels: number): void {
    this.cameraMovedByUser = true;
    this.controls.pan(dxPixels, dyPixels);
  }

  zoom(factor: number): void {
    this.cameraMovedByUser = true;
    // Closer by `factor` above 1: OrbitControls' dollyOut brings the camera in, dollyIn takes it away.
    this.controls[factor > 1 ? 'dollyOut' : 'dollyIn'](Math.max(factor, 1 / factor));
  }

  /** Draws the whole picture at once (however long it takes) and returns it as PNG. */
  screenshot(): Promise<Blob> {
    this.renderFull();
    return new Promise((resolve, reject) =>
      this.canvas.toBlob(
        (b) => (b ? resolve(b) : reject(new Error('the canvas gave no image'))),
        'image/png',
      ),
    );
  }

  /** Something changed: the picture is drawn again from the start on the next frame. */
  requestRender(): void {
    this.draw.restart();
    this.scheduleFrame();
  }

  private scheduleFrame(): void {
    if (!this.disposed) this.frames.schedule();
  }

  /** Visible meshes in drawing order: opaque ones first, as three draws them in one frame. */
  private drawOrder(): ViewerMesh[] {
    const shown = this.visibleMeshes();
    return [...shown.filter((m) => !m.surface.transparent), ...shown.filter((m) => m.surface.transparent)];
  }

  /** One batch of the picture over what earlier frames drew. */
  private render(): void {
    // Until the shaders are compiled ahead, a frame would compile them in one long task.
    if (this.disposed || !this.warmedUp) return;
    const order = this.drawOrder();
    fitDepthRange(this.camera, this.sceneSphere());
    const { complete, longestMs } = this.draw.step(order);
    // For tests and screenshots of the canvas: whether it shows the whole picture yet.
    this.canvas.dataset.frame = complete ? 'complete' : 'partial';
    this.callbacks.onFrame?.(this.camera.matrixWorldInverse.elements);
    if (!complete) {
      this.scheduleFrame();
      return;
    }
    for (const m of order) {
      if (m.drawn) continue;
      m.drawn = true;
      this.callbacks.onFirstDrawn?.(m.id, longestMs);
    }
  }

  /** The whole picture in one frame. */
  private renderFull(): void {
    if (this.disposed) return;
    fitDepthRange(this.camera, this.sceneSphere());
    this.draw.full(this.meshes.values());
    this.canvas.dataset.frame = 'complete';
  }

  private resize(): void {
    const host = this.canvas.parentElement ?? this.canvas;
    const w = Math.max(1, host.clientWidth);
    const h = Math.max(1, host.clientHeight);
    // Resizing the canvas reallocates its drawing buffer (a wait on the GPU): only on a real change.
    const size = this.renderer.getSize(new Vector2());
    if (size.x === w && size.y === h) return;
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.requestRender();
  }

  private readonly onPointerDown = (e: PointerEvent): void => {
    this.pointerDown = { x: e.clientX, y: e.clientY };
  };

  /** A click (not a drag, which orbits) while measuring picks the nearest visible, unclipped surface. */
  private readonly onPointerUp = (e: PointerEvent): void => {
    const down = this.pointerDown;
    this.pointerDown = null;
    if (!this.measuring || !down || Math.hypot(e.clientX - down.x, e.clientY - down.y) > 4) return;
    const hit = this.pick(e.clientX, e.clientY);
    if (hit) this.callbacks.onPick?.(hit);
  };

  pick(clientX: number, clientY: number): Vec3 | null {
    const rect = this.canvas.getBoundingClientRect();
    if (this.picker.supported) {
      const size = this.renderer.getDrawingBufferSize(new Vector2());
      this.overlay.group.visible = false;
      // Caps are large planes: picked with the override material they would cover the background.
      for (const m of this.meshes.values()) m.setCapsEnabled(false);
      try {
        return this.picker.pick(
          this.scene,
          this.camera,
          ((clientX - rect.left) * size.x) / rect.width,
          ((clientY - rect.top) * size.y) / rect.height,
          this.clipping ? [this.clipPlane] : [],
        );
      } finally {
        this.overlay.group.visible = true;
        for (const m of this.meshes.values()) m.setCapsEnabled(true);
      }
    }
    // Without float render targets: test the triangles in JavaScript (slow on millions of them).
    const ndc = new Vector2(
      ((clientX - rect.left) / rect.width) * 2 - 1,
      -((clientY - rect.top) / rect.height) * 2 + 1,
    );
    const surfaces = this.visibleMeshes().flatMap((m) => m.surfaces());
    return raycastPick(this.camera, ndc, surfaces, this.clipping ? this.clipPlane : null);
  }

  private readonly onContextLost = (e: Event): void => {
    e.preventDefault();
    this.callbacks.onContextLost?.();
  };

  dispose(): void {
    this.disposed = true;
    this.frames.stop();
    this.resizeObserver.disconnect();
    this.canvas.removeEventListener('pointerdown', this.onPointerDown);
    this.canvas.removeEventListener('pointerup', this.onPointerUp);
    this.canvas.removeEventListener('webglcontextlost', this.onContextLost);
    this.controls.dispose();
    for (const id of [...this.meshes.keys()]) this.removeMesh(id);
    this.overlay.dispose();
    this.detachSlicePlanes();
    this.warmUp.traverse((o) => {
      const m = o as Mesh;
      if (m.isMesh) (m.material as Material).dispose();
    });
    this.picker.dispose();
    this.draw.dispose();
    this.renderer.dispose();
  }
}
