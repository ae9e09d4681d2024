import { describe, expect, it } from 'vitest';
import { PerspectiveCamera, Vector3 } from 'three';
import {
  STANDARD_VIEWS,
  VIEW_ORDER,
  WORLD_UP,
  cameraDirection,
  orientationMarkerLayout,
} from './standard-views.js';
import type { StandardView } from './standard-views.js';

/** A camera placed as the viewer places it: on the view direction, looking at the origin. */
function cameraFor(view: StandardView): PerspectiveCamera {
  const camera = new PerspectiveCamera(30, 1, 1, 1000);
  camera.up.set(...WORLD_UP);
  camera.position.copy(new Vector3(...cameraDirection(view)).multiplyScalar(300));
  camera.lookAt(0, 0, 0);
  camera.updateMatrixWorld();
  return camera;
}

/** Which patient direction (LPS: +x Left, +y Posterior, +z Superior) lies along a screen direction. */
function patientDirectionOnScreen(camera: PerspectiveCamera, screen: 'right' | 'up'): string {
  const names: [Vector3, string][] = [
    [new Vector3(1, 0, 0), 'L'],
    [new Vector3(-1, 0, 0), 'R'],
    [new Vector3(0, 1, 0), 'P'],
    [new Vector3(0, -1, 0), 'A'],
    [new Vector3(0, 0, 1), 'S'],
    [new Vector3(0, 0, -1), 'I'],
  ];
  let best = '';
  let bestScore = -Infinity;
  for (const [dir, name] of names) {
    // Project a point 10 mm along the direction and see where it lands in normalised device coordinates.
    const p = dir.clone().multiplyScalar(10).project(camera);
    const score = screen === 'right' ? p.x : p.y;
    if (score > bestScore) {
      bestScore = score;
      best = name;
    }
  }
  return best;
}

describe('standard views in patient coordinates (LPS)', () => {
  // Radiological conventions: facing the patient, the patient's left is on the viewer's right.
  const expected: Record<StandardView, { right: string; up: string; toward: string }> = {
    anterior: { right: 'L', up: 'S', toward: 'A' },
    posterior: { right: 'R', up: 'S', toward: 'P' },
    left: { right: 'P', up: 'S', toward: 'L' },
    right: { right: 'A', up: 'S', toward: 'R' },
    superior: { right: 'R', up: 'A', toward: 'S' },
    inferior: { right: 'L', up: 'A', toward: 'I' },
  };

  for (const view of VIEW_ORDER) {
    it(`${view}: the camera sits ${expected[view].toward}, screen right is ${expected[view].right}, up is ${expected[view].up}`, () => {
      const camera = cameraFor(view);
      expect(patientDirectionOnScreen(camera, 'right')).toBe(expected[view].right);
      expect(patientDirectionOnScreen(camera, 'up')).toBe(expected[view].up);
      const from = new Vector3(...STANDARD_VIEWS[view].from);
      expect(camera.position.clone().normalize().dot(from)).toBeGreaterThan(0.9999);
    });

    it(`${view}: the orientation marker agrees with the projection`, () => {
      const camera = cameraFor(view);
      const axes = orientationMarkerLayout(camera.matrixWorldInverse.elements);
      const right = axes.reduce((a, b) => (b.x > a.x ? b : a));
      const up = axes.reduce((a, b) => (b.y < a.y ? b : a));
      const toward = axes[axes.length - 1]!;
      expect(right.label).toBe(expected[view].right);
      expect(up.label).toBe(expected[view].up);
      expect(toward.label).toBe(expected[view].toward);
    });
  }
});
