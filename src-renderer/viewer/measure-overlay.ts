/**
 * Draws the measurement list in the scene: a dot at each picked point and a line per finished
 * measurement, always on top of the surfaces so a point on the far side of a ridge stays visible.
 */
import {
  BufferGeometry,
  Group,
  Line,
  LineBasicMaterial,
  Mesh,
  MeshBasicMaterial,
  SphereGeometry,
  Vector3,
} from 'three';
import type { Measurement } from './measurements.js';
import type { Vec3 } from './standard-views.js';

const MEASURE_COLOUR = '#e4572e';

export class MeasureOverlay {
  readonly group = new Group();
  private readonly dotMaterial = new MeshBasicMaterial({ color: MEASURE_COLOUR, depthTest: false });
  private readonly lineMaterial = new LineBasicMaterial({ color: MEASURE_COLOUR, depthTest: false });

  constructor() {
    this.group.renderOrder = 10_000;
  }

  /** Replaces what is drawn; `dotRadius` follows the scene's size so dots read at any zoom. */
  show(measurements: readonly Measurement[], pending: Vec3 | null, dotRadius: number): void {
    this.clear();
    const dot = new SphereGeometry(dotRadius, 16, 12);
    const points: Vec3[] = measurements.flatMap((m) => [m.a, m.b]);
    if (pending) points.push(pending);
    for (const p of points) {
      const d = new Mesh(dot, this.dotMaterial);
      d.position.set(...p);
      d.renderOrder = 10_000;
      this.group.add(d);
    }
    for (const m of measurements) {
      const g = new BufferGeometry().setFromPoints([new Vector3(...m.a), new Vector3(...m.b)]);
      const line = new Line(g, this.lineMaterial);
      line.renderOrder = 10_000;
      this.group.add(line);
    }
  }

  private clear(): void {
    const geometries = new Set<BufferGeometry>();
    for (const child of [...this.group.children]) {
      this.group.remove(child);
      geometries.add((child as Mesh | Line).geometry);
    }
    for (const g of geometries) g.dispose();
  }

  dispose(): void {
    this.clear();
    this.dotMaterial.dispose();
    this.lineMaterial.dispose();
  }
}
