import {
  BufferAttribute,
  BufferGeometry,
  Box3,
  Color,
  DirectionalLight,
  DoubleSide,
  Group,
  HemisphereLight,
  Line,
  LineBasicMaterial,
  Mesh,
  MeshBasicMaterial,
  MeshPhongMaterial,
  PerspectiveCamera,
  Plane,
  Raycaster,
  Scene,
  SphereGeometry,
  Sphere,
  Vector2,
  Vector3,
  WebGLRenderer,
} from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { AppError } from '../../src-shared/errors.js';
import { isSoftwareRenderer } from './gpu-info.js';
import { SurfacePicker } from './surface-picker.js';
import type { IndexedMesh } from './weld.js';
import { cameraDirection, WORLD_UP } from './standard-views.js';
import type { StandardView, Vec3 } from './standard-views.js';
import type { ClipState } from './viewer-store.js';

export interface MeshAppearance {
  colour: string;
  visible: boolean;
  opacity: number;
}

export interface SceneCallbacks {
  /** After each drawn frame, with the camera's view matrix (for the orientation marker). */
  onFrame?(viewMatrix: ArrayLike<number>): void;
  /** The first frame that shows a mesh was drawn; renderMs is the render call (buffer upload, draw calls). */
  onFirstDrawn?(id: string, renderMs: number): void;
  /** A point on a visible surface was clicked while measuring. */
  onPick?(point: Vec3): void;
  /** The WebGL context was lost (GPU reset or out of GPU memory). */
  onContextLost?(): void;
}

const FOV_DEGREES = 30;
const MEASURE_COLOUR = '#e4572e';

interface SceneMesh {
  mesh: Mesh<BufferGeometry, MeshPhongMaterial>;
  /**
   * Depth only, drawn just before the mesh when it is see-through: then only its nearest layer
   * blends over what lies behind, instead of all its inner layers in triangle order.
   */
  depth: Mesh<BufferGeometry, MeshBasicMaterial>;
  data: IndexedMesh;
  drawn: boolean;
}

function toGeometry(data: IndexedMesh): BufferGeometry {
  const g = new BufferGeometry();
  g.setAttribute('position', new BufferAttribute(data.positions, 3));
  g.setAttribute('normal', new BufferAttribute(data.normals, 3));
  g.setIndex(new BufferAttribute(data.index, 1));
  // Bounds come from the worker: computing them here would walk every vertex on the main thread.
  const [x0, y0, z0, x1, y1, z1] = data.bounds;
  g.boundingBox = new Box3(new Vector3(x0, y0, z0), new Vector3(x1, y1, z1));
  const [cx, cy, cz, r] = data.sphere;
  g.boundingSphere = new Sphere(new Vector3(cx, cy, cz), r);
  return g;
}

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
  private readonly meshes = new Map<string, SceneMesh>();
  private readonly clipPlane = new Plane(new Vector3(0, 0, -1), 0);
  private readonly measureGroup = new Group();
  private readonly resizeObserver: ResizeObserver;
  private readonly picker: SurfacePicker;
  private frameRequest = 0;
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
    try {
      // preserveDrawingBuffer: screenshots and pixel checks read the canvas after the frame is shown.
      this.renderer = new WebGLRenderer({
        canvas,
        antialias: !isSoftwareRenderer(),
        preserveDrawingBuffer: true,
      });
    } catch (e) {
      throw new AppError('internal', 'The 3D view cannot start: this computer does not provide WebGL.', {
        action: 'Update the graphics driver, or turn on hardware acceleration.',
        cause: e,
      });
    }
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.renderer.localClippingEnabled = true;
    this.picker = new SurfacePicker(this.renderer);

    this.camera.up.set(...WORLD_UP);
    this.camera.position.set(0, -500, 0);
    this.scene.add(this.camera);
    // A headlight: the surface facing the viewer is always lit, whatever the orbit.
    // Intensities chosen so a surface facing the viewer shows its chosen colour almost exactly.
    const headlight = new DirectionalLight(0xffffff, 2.4);
    headlight.position.set(0, 0, 0);
    headlight.target.position.set(0, 0, -1);
    this.camera.add(headlight, headlight.target);
    this.scene.add(new HemisphereLight(0xffffff, 0x606060, 1.3));
    this.measureGroup.renderOrder = 10;
    this.scene.add(this.measureGroup);

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

  addMesh(id: string, data: IndexedMesh, look: MeshAppearance): void {
    if (this.meshes.has(id)) return;
    const material = new MeshPhongMaterial({
      specular: 0x1c1c1c,
      shininess: 24,
      // Both sides: segmentations cut at the scan's edge are open, and a clipped mesh is looked into.
      side: DoubleSide,
      wireframe: this.wireframe,
    });
    const mesh = new Mesh(toGeometry(data), material);
    mesh.name = id;
    const depth = new Mesh(
      mesh.geometry,
      new MeshBasicMaterial({ colorWrite: false, transparent: true, side: DoubleSide }),
    );
    // A child: hidden with the mesh, never picked (picking does not recurse).
    mesh.add(depth);
    // See-through meshes are drawn in the order they came, each right after its depth pass.
    const order = 2 * this.addedCount++;
    depth.renderOrder = 10 + order;
    const entry = { mesh, depth, data, drawn: false };
    this.meshes.set(id, entry);
    this.applyAppearance(entry, look, order);
    this.applyClip(entry);
    this.scene.add(mesh);
    // Job outputs arrive one by one: keep framing them all until the user takes the camera.
    if (!this.cameraMovedByUser || this.meshes.size === 1) this.fit();
    this.requestRender();
  }

  removeMesh(id: string): void {
    const entry = this.meshes.get(id);
    if (!entry) return;
    this.scene.remove(entry.mesh);
    entry.mesh.geometry.dispose();
    entry.mesh.material.dispose();
    entry.depth.material.dispose();
    this.meshes.delete(id);
    if (this.meshes.size === 0) this.cameraMovedByUser = false;
    this.requestRender();
  }

  setAppearance(id: string, look: MeshAppearance): void {
    const entry = this.meshes.get(id);
    if (!entry) return;
    this.applyAppearance(entry, look, entry.depth.renderOrder - 10);
    this.requestRender();
  }

  private applyAppearance({ mesh, depth }: SceneMesh, look: MeshAppearance, order: number): void {
    const m = mesh.material;
    m.color.set(look.colour);
    mesh.visible = look.visible && look.opacity > 0;
    const transparent = look.opacity < 1;
    if (m.transparent !== transparent) m.needsUpdate = true;
    m.transparent = transparent;
    m.opacity = look.opacity;
    depth.visible = transparent && !m.wireframe;
    mesh.renderOrder = transparent ? 11 + order : 0;
  }

  setWireframe(on: boolean): void {
    this.wireframe = on;
    for (const { mesh, depth } of this.meshes.values()) {
      mesh.material.wireframe = on;
      // A depth pass would hide the far edges a see-through wireframe should show.
      depth.visible = mesh.material.transparent && !on;
    }
    this.requestRender();
  }

  /** One plane across an axis at `position` mm; the part on the chosen side is cut away to look inside. */
  setClip(clip: ClipState & { position: number }): void {
    this.clipping = clip.enabled;
    const normal = new Vector3(
      clip.axis === 'x' ? 1 : 0,
      clip.axis === 'y' ? 1 : 0,
      clip.axis === 'z' ? 1 : 0,
    );
    // three keeps what lies on the positive side of the plane: n.p + c >= 0.
    if (clip.flip) this.clipPlane.set(normal, -clip.position);
    else this.clipPlane.set(normal.negate(), clip.position);
    for (const entry of this.meshes.values()) this.applyClip(entry);
    this.requestRender();
  }

  private applyClip({ mesh, depth }: SceneMesh): void {
    const planes = this.clipping ? [this.clipPlane] : [];
    for (const material of [mesh.material, depth.material]) {
      if (material.clippingPlanes?.length !== planes.length) material.needsUpdate = true;
      material.clippingPlanes = planes;
    }
  }

  setMeasuring(on: boolean): void {
    this.measuring = on;
    this.canvas.style.cursor = on ? 'crosshair' : '';
  }

  /** Draws the picked points and, for two, the segment between them; always on top of the surface. */
  setMeasurePoints(points: readonly Vec3[]): void {
    for (const child of [...this.measureGroup.children]) {
      this.measureGroup.remove(child);
      const o = child as Mesh | Line;
      o.geometry.dispose();
      (o.material as MeshBasicMaterial).dispose();
    }
    const r = this.sceneSphere()?.radius ?? 50;
    for (const p of points) {
      const dot = new Mesh(
        new SphereGeometry(r * 0.008, 16, 12),
        new MeshBasicMaterial({ color: MEASURE_COLOUR, depthTest: false }),
      );
      dot.position.set(...p);
      dot.renderOrder = 10;
      this.measureGroup.add(dot);
    }
    if (points.length === 2) {
      const g = new BufferGeometry().setFromPoints(points.map((p) => new Vector3(...p)));
      const line = new Line(g, new LineBasicMaterial({ color: MEASURE_COLOUR, depthTest: false }));
      line.renderOrder = 10;
      this.measureGroup.add(line);
    }
    this.requestRender();
  }

  private visibleMeshes(): Mesh[] {
    return [...this.meshes.values()].filter(({ mesh }) => mesh.visible).map(({ mesh }) => mesh);
  }

  private sceneBox(): Box3 | null {
    const shown = this.visibleMeshes();
    const list = shown.length > 0 ? shown : [...this.meshes.values()].map((e) => e.mesh);
    if (list.length === 0) return null;
    const box = new Box3();
    for (const m of list) box.union(m.geometry.boundingBox!);
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
    this.placeCamera(box, dir.normalize());
  }

  setView(view: StandardView): void {
    const box =
      this.sceneBox() ??
      new Box3().setFromCenterAndSize(this.controls.target.clone(), new Vector3(100, 100, 100));
    this.placeCamera(box, new Vector3(...cameraDirection(view)));
  }

  /**
   * Looks at the box centre from `direction`, as close as lets every corner of the box fit the
   * view: tighter than fitting the bounding sphere, so the anatomy fills the screen.
   */
  private placeCamera(box: Box3, direction: Vector3): void {
    const centre = box.getCenter(new Vector3());
    this.camera.position.copy(centre).add(direction);
    this.camera.lookAt(centre);
    this.camera.updateMatrixWorld();
    const right = new Vector3().setFromMatrixColumn(this.camera.matrixWorld, 0);
    const up = new Vector3().setFromMatrixColumn(this.camera.matrixWorld, 1);
    const tanV = Math.tan((this.camera.fov * Math.PI) / 360);
    const tanH = tanV * this.camera.aspect;
    let dist = 0;
    const corner = new Vector3();
    for (let i = 0; i < 8; i++) {
      corner
        .set(i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y, i & 4 ? box.max.z : box.min.z)
        .sub(centre);
      const toward = corner.dot(direction);
      dist = Math.max(
        dist,
        toward + Math.abs(corner.dot(right)) / tanH,
        toward + Math.abs(corner.dot(up)) / tanV,
      );
    }
    // A margin, so the outline does not touch the edge of the view.
    dist = Math.max(dist * 1.08, 1e-3);
    this.controls.target.copy(centre);
    this.camera.position.copy(centre).addScaledVector(direction, dist);
    this.camera.lookAt(centre);
    this.controls.update();
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
    if (factor > 1) this.controls.dollyIn(factor);
    else this.controls.dollyOut(1 / factor);
  }

  /** Draws a fresh frame and returns it as PNG. */
  screenshot(): Promise<Blob> {
    this.render();
    return new Promise((resolve, reject) =>
      this.canvas.toBlob(
        (b) => (b ? resolve(b) : reject(new Error('the canvas gave no image'))),
        'image/png',
      ),
    );
  }

  requestRender(): void {
    if (this.frameRequest !== 0 || this.disposed) return;
    this.frameRequest = requestAnimationFrame(() => {
      this.frameRequest = 0;
      this.render();
    });
  }

  private render(): void {
    if (this.disposed) return;
    // Near and far follow the camera, so a 40 mm tooth and a 250 mm skull both keep depth precision.
    const sphere = this.sceneSphere();
    if (sphere) {
      const d = this.camera.position.distanceTo(sphere.center);
      this.camera.near = Math.max(d - sphere.radius * 1.5, d / 1000, 1e-4);
      this.camera.far = d + sphere.radius * 1.5;
      this.camera.updateProjectionMatrix();
    }
    const started = performance.now();
    this.renderer.render(this.scene, this.camera);
    const renderMs = performance.now() - started;
    this.callbacks.onFrame?.(this.camera.matrixWorldInverse.elements);
    for (const [id, entry] of this.meshes) {
      if (!entry.drawn && entry.mesh.visible) {
        entry.drawn = true;
        this.callbacks.onFirstDrawn?.(id, renderMs);
      }
    }
  }

  private resize(): void {
    const host = this.canvas.parentElement ?? this.canvas;
    const w = Math.max(1, host.clientWidth);
    const h = Math.max(1, host.clientHeight);
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
      this.measureGroup.visible = false;
      try {
        return this.picker.pick(
          this.scene,
          this.camera,
          ((clientX - rect.left) * size.x) / rect.width,
          ((clientY - rect.top) * size.y) / rect.height,
          this.clipping ? [this.clipPlane] : [],
        );
      } finally {
        this.measureGroup.visible = true;
      }
    }
    // Without float render targets: test the triangles in JavaScript (slow on millions of them).
    const ndc = new Vector2(
      ((clientX - rect.left) / rect.width) * 2 - 1,
      -((clientY - rect.top) / rect.height) * 2 + 1,
    );
    const raycaster = new Raycaster();
    raycaster.setFromCamera(ndc, this.camera);
    for (const hit of raycaster.intersectObjects(this.visibleMeshes(), false)) {
      if (this.clipping && this.clipPlane.distanceToPoint(hit.point) < 0) continue;
      return [hit.point.x, hit.point.y, hit.point.z];
    }
    return null;
  }

  private readonly onContextLost = (e: Event): void => {
    e.preventDefault();
    this.callbacks.onContextLost?.();
  };

  dispose(): void {
    this.disposed = true;
    cancelAnimationFrame(this.frameRequest);
    this.resizeObserver.disconnect();
    this.canvas.removeEventListener('pointerdown', this.onPointerDown);
    this.canvas.removeEventListener('pointerup', this.onPointerUp);
    this.canvas.removeEventListener('webglcontextlost', this.onContextLost);
    this.controls.dispose();
    for (const id of [...this.meshes.keys()]) this.removeMesh(id);
    this.setMeasurePoints([]);
    this.picker.dispose();
    this.renderer.dispose();
  }
}
