/**
 * Compiles every shader the meshes use, and draws each material once, while the view is still
 * empty. A software renderer (SwiftShader, behind ANGLE's Vulkan backend) builds a pipeline for
 * each shader and state at its first draw: 100-250 ms that would otherwise fall into the first
 * frame of the first mesh, after the user chose it. There, the warm-up also takes buffer memory
 * for the first mesh and gives it back (gpu-memory-reserve.ts).
 */
import { BufferAttribute, BufferGeometry, Group, Mesh } from 'three';
import type { PerspectiveCamera, Plane, Scene, WebGLRenderer } from 'three';
import { capMesh, stencilMaterial } from './clip-caps.js';
import { depthMaterial, surfaceMaterial } from './mesh-object.js';
import { nextFrame } from './frame-pacer.js';
import { reserveBufferMemory } from './gpu-memory-reserve.js';
import { gpuCaughtUp, type OffscreenTarget } from './offscreen-picture.js';

/**
 * Tiny meshes with every material variant the viewer draws (opaque or see-through, clipped or
 * not), so their shaders compile before the first mesh arrives and not in its first frame.
 * Keep the group until the viewer closes: disposing its materials would free the shared programs.
 */
export function warmUpObjects(plane: Plane): Group {
  const g = new Group();
  const geometry = new BufferGeometry();
  // A speck at the origin, never culled: drawing it builds the pipelines.
  geometry.setAttribute(
    'position',
    new BufferAttribute(new Float32Array([0, 0, 0, 1e-3, 0, 0, 0, 0, 1e-3]), 3),
  );
  geometry.setAttribute('normal', new BufferAttribute(new Float32Array([0, 0, 1, 0, 0, 1, 0, 0, 1]), 3));
  // Indexed like the meshes: an indexed draw is another pipeline state (primitive restart) to a Vulkan-based GL.
  geometry.setIndex(new BufferAttribute(new Uint16Array([0, 1, 2]), 1));
  for (const clip of [false, true]) {
    for (const transparent of [false, true]) {
      const planes = clip ? [plane] : [];
      const materials = [surfaceMaterial(), depthMaterial(), stencilMaterial(), capMesh().material];
      materials.forEach((m, i) => {
        m.transparent = transparent || i === 1;
        // The cap is never clipped: it lies on the plane.
        if (i < 3) m.clippingPlanes = planes;
        const speck = new Mesh(geometry, m);
        speck.frustumCulled = false;
        g.add(speck);
      });
    }
  }
  return g;
}

/** Compiles, then draws the warm-up objects a few per animation frame; resolves when done. */
export async function warmUpShaders(
  renderer: WebGLRenderer,
  scene: Scene,
  camera: PerspectiveCamera,
  objects: Group,
  /** Where the pictures are drawn (a software renderer's target), or null for the canvas. */
  target: OffscreenTarget | null,
  stopped: () => boolean,
): Promise<void> {
  // Programs depend on where they draw (the canvas encodes colours for the screen, a target not).
  const bind = (): void => (target ? target.bind() : renderer.setRenderTarget(null));
  try {
    bind();
    await renderer.compileAsync(objects, camera, scene);
  } catch {
    // Compiling ahead is an optimisation: without it the first frame compiles as usual.
  } finally {
    renderer.setRenderTarget(null);
  }
  const pending = [...objects.children];
  while (pending.length > 0 && !stopped()) {
    await nextFrame();
    const group = new Group();
    // Clones share the materials, so the programs and pipelines are those of the originals.
    for (const o of pending.splice(0, 4)) group.add(o.clone());
    scene.add(group);
    try {
      bind();
      renderer.render(scene, camera);
    } finally {
      renderer.setRenderTarget(null);
      scene.remove(group);
    }
  }
  if (!target || stopped()) return;
  const release = reserveBufferMemory(renderer.getContext() as WebGL2RenderingContext);
  try {
    // The GPU process builds the pipelines as it runs these draws: a second and more here. A canvas
    // frame would hold this thread until it is done (the compositor reads the frame back), so the
    // canvas is left alone until then and the page stays responsive (a 1.0-1.4 s task before).
    await gpuCaughtUp(renderer, stopped);
    if (stopped()) return;
    // The copy to the canvas too (it shows the empty picture: the background). The reserve is
    // freed once that frame is on screen, the order in which it was measured to work.
    target.present();
    await nextFrame();
    await nextFrame();
  } finally {
    release();
  }
}
