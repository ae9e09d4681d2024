import {
  Color,
  DoubleSide,
  FloatType,
  Raycaster,
  RGBAFormat,
  ShaderMaterial,
  Vector2,
  WebGLRenderTarget,
} from 'three';
import type { Object3D, PerspectiveCamera, Plane, Scene, WebGLRenderer } from 'three';
import type { Vec3 } from './standard-views.js';

const VERTEX = /* glsl */ `
#include <clipping_planes_pars_vertex>
varying vec3 vWorld;
void main() {
  vec4 world = modelMatrix * vec4(position, 1.0);
  vWorld = world.xyz;
  vec4 mvPosition = viewMatrix * world;
  gl_Position = projectionMatrix * mvPosition;
  #include <clipping_planes_vertex>
}`;

const FRAGMENT = /* glsl */ `
#include <clipping_planes_pars_fragment>
varying vec3 vWorld;
void main() {
  #include <clipping_planes_fragment>
  gl_FragColor = vec4(vWorld, 1.0);
}`;

/**
 * Finds the surface point under a pixel by drawing the scene once more into a 1 x 1 float
 * target that stores world positions. One draw call per mesh instead of testing every triangle
 * in JavaScript: a click on a 2-million-triangle mesh costs a frame, not half a second of main
 * thread. It sees exactly what is drawn: hidden meshes and clipped parts are not picked.
 */
export class SurfacePicker {
  private readonly target = new WebGLRenderTarget(1, 1, { type: FloatType, format: RGBAFormat });
  private readonly material = new ShaderMaterial({
    vertexShader: VERTEX,
    fragmentShader: FRAGMENT,
    side: DoubleSide,
    clipping: true,
  });
  private readonly pixel = new Float32Array(4);
  private readonly savedClear = new Color();

  constructor(private readonly renderer: WebGLRenderer) {}

  /** Float colour targets are optional in WebGL2; without them the caller falls back to raycasting. */
  get supported(): boolean {
    return this.renderer.extensions.has('EXT_color_buffer_float');
  }

  /**
   * World position under drawing-buffer pixel (x, y), counted from the top left, or null where
   * no surface is drawn.
   */
  pick(scene: Scene, camera: PerspectiveCamera, x: number, y: number, clippingPlanes: Plane[]): Vec3 | null {
    const size = this.renderer.getDrawingBufferSize(new Vector2());
    this.material.clippingPlanes = clippingPlanes;
    const alpha = this.renderer.getClearAlpha();
    this.renderer.getClearColor(this.savedClear);
    camera.setViewOffset(size.x, size.y, Math.floor(x), Math.floor(y), 1, 1);
    scene.overrideMaterial = this.material;
    try {
      this.renderer.setRenderTarget(this.target);
      this.renderer.setClearColor(0x000000, 0);
      this.renderer.clear();
      this.renderer.render(scene, camera);
      this.renderer.readRenderTargetPixels(this.target, 0, 0, 1, 1, this.pixel);
    } finally {
      scene.overrideMaterial = null;
      camera.clearViewOffset();
      this.renderer.setRenderTarget(null);
      this.renderer.setClearColor(this.savedClear, alpha);
    }
    const [px, py, pz, hit] = this.pixel;
    return hit! > 0.5 ? [px!, py!, pz!] : null;
  }

  dispose(): void {
    this.target.dispose();
    this.material.dispose();
  }
}

/** The nearest surface point under normalised device coordinates `ndc`, on the kept side of `clip`. */
export function raycastPick(
  camera: PerspectiveCamera,
  ndc: Vector2,
  surfaces: Object3D[],
  clip: Plane | null,
): Vec3 | null {
  const raycaster = new Raycaster();
  raycaster.setFromCamera(ndc, camera);
  for (const hit of raycaster.intersectObjects(surfaces, false)) {
    if (clip && clip.distanceToPoint(hit.point) < 0) continue;
    return [hit.point.x, hit.point.y, hit.point.z];
  }
  return null;
}
