/** Where the camera stands to frame a box, and the depth range that keeps precision. */
import { Vector3 } from 'three';
import type { Box3, PerspectiveCamera, Sphere } from 'three';
import type { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

/**
 * Looks at the box centre from `direction`, as close as lets every corner of the box fit the
 * view: tighter than fitting the bounding sphere, so the anatomy fills the screen.
 */
export function placeCamera(
  camera: PerspectiveCamera,
  controls: OrbitControls,
  box: Box3,
  direction: Vector3,
): void {
  const centre = box.getCenter(new Vector3());
  camera.position.copy(centre).add(direction);
  camera.lookAt(centre);
  camera.updateMatrixWorld();
  const right = new Vector3().setFromMatrixColumn(camera.matrixWorld, 0);
  const up = new Vector3().setFromMatrixColumn(camera.matrixWorld, 1);
  const tanV = Math.tan((camera.fov * Math.PI) / 360);
  const tanH = tanV * camera.aspect;
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
  controls.target.copy(centre);
  camera.position.copy(centre).addScaledVector(direction, dist);
  camera.lookAt(centre);
  controls.update();
}

/** Near and far follow the camera, so a 40 mm tooth and a 250 mm skull both keep depth precision. */
export function fitDepthRange(camera: PerspectiveCamera, sphere: Sphere | null): void {
  if (!sphere) return;
  const d = camera.position.distanceTo(sphere.center);
  camera.near = Math.max(d - sphere.radius * 1.5, d / 1000, 1e-4);
  camera.far = d + sphere.radius * 1.5;
  camera.updateProjectionMatrix();
}
