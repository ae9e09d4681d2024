/**
 * Caps for clipped meshes, by the stencil method: the clipped mesh is drawn once more into the
 * stencil buffer only, each face inverting the stencil bit of its pixels. Where a pixel's ray
 * crosses the kept part of a closed surface an odd number of times, it looks into the solid
 * through the cut: there the stencil is set and a plane at the cut, in the mesh's colour, is
 * drawn. The cap resets the stencil as it draws, and the stencil is cleared after each cap, so
 * the next mesh starts clean.
 */
import {
  AlwaysStencilFunc,
  DoubleSide,
  InvertStencilOp,
  Mesh,
  MeshBasicMaterial,
  MeshPhongMaterial,
  NotEqualStencilFunc,
  PlaneGeometry,
  Quaternion,
  ReplaceStencilOp,
  Vector3,
} from 'three';
import type { Plane } from 'three';

/** Stencil-only pass over a clipped mesh's faces: no colour, no depth, every face counted. */
export function stencilMaterial(): MeshBasicMaterial {
  return new MeshBasicMaterial({
    colorWrite: false,
    depthWrite: false,
    depthTest: false,
    side: DoubleSide,
    stencilWrite: true,
    stencilFunc: AlwaysStencilFunc,
    stencilFail: InvertStencilOp,
    stencilZFail: InvertStencilOp,
    stencilZPass: InvertStencilOp,
  });
}

const Z = new Vector3(0, 0, 1);

/** The cap: a square on the plane, drawn only where the stencil says the cut shows. */
export function capMesh(): Mesh<PlaneGeometry, MeshPhongMaterial> {
  const cap = new Mesh(
    new PlaneGeometry(1, 1),
    new MeshPhongMaterial({
      specular: 0x1c1c1c,
      shininess: 24,
      side: DoubleSide,
      stencilWrite: true,
      stencilRef: 0,
      stencilFunc: NotEqualStencilFunc,
      stencilFail: ReplaceStencilOp,
      stencilZFail: ReplaceStencilOp,
      stencilZPass: ReplaceStencilOp,
    }),
  );
  // Pixels of an open surface can keep an odd count outside the cap: clear them for the next mesh.
  cap.onAfterRender = (renderer) => renderer.clearStencil();
  cap.visible = false;
  return cap;
}

/**
 * Lays the cap on the plane, centred under the mesh's bounding sphere and large enough to cover
 * the sphere's cross-section. Returns false when the plane misses the sphere (nothing to cap).
 */
export function placeCap(
  cap: Mesh,
  plane: Plane,
  sphere: readonly [number, number, number, number],
): boolean {
  const [cx, cy, cz, r] = sphere;
  const centre = new Vector3(cx, cy, cz);
  const d = plane.distanceToPoint(centre);
  if (Math.abs(d) > r) return false;
  cap.position.copy(centre).addScaledVector(plane.normal, -d);
  cap.quaternion.copy(new Quaternion().setFromUnitVectors(Z, plane.normal));
  // A margin: the cross-section of the sphere is the widest the cut can be.
  const size = Math.max(2.2 * r, 1e-6);
  cap.scale.set(size, size, 1);
  cap.updateMatrixWorld();
  return true;
}
