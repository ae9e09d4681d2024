/** The renderer and lights of the 3D view. */
import { DirectionalLight, HemisphereLight, WebGLRenderer } from 'three';
import type { PerspectiveCamera, Scene } from 'three';
import { AppError } from '../../src-shared/errors.js';
import { isSoftwareRenderer } from './gpu-info.js';

export function createRenderer(canvas: HTMLCanvasElement): WebGLRenderer {
  let renderer: WebGLRenderer;
  try {
    renderer = new WebGLRenderer({
      canvas,
      antialias: !isSoftwareRenderer(),
      // Screenshots and pixel checks read the canvas after the frame is shown, and a picture
      // built over several frames draws each batch over the last.
      preserveDrawingBuffer: true,
      // Caps on clipped meshes are drawn where a stencil pass marks the cut.
      stencil: true,
    });
  } catch (e) {
    throw new AppError('internal', 'The 3D view cannot start: this computer does not provide WebGL.', {
      action: 'Update the graphics driver, or turn on hardware acceleration.',
      cause: e,
    });
  }
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  renderer.localClippingEnabled = true;
  return renderer;
}

/**
 * A headlight (the surface facing the viewer is always lit, whatever the orbit) and a soft sky.
 * Intensities chosen so a surface facing the viewer shows its chosen colour almost exactly.
 */
export function addLights(scene: Scene, camera: PerspectiveCamera): void {
  scene.add(camera);
  const headlight = new DirectionalLight(0xffffff, 2.4);
  headlight.position.set(0, 0, 0);
  headlight.target.position.set(0, 0, -1);
  camera.add(headlight, headlight.target);
  scene.add(new HemisphereLight(0xffffff, 0x606060, 1.3));
}
