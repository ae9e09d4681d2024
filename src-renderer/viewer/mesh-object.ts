/**
 * One mesh of the scene as three.js objects: a group per chunk (the scene controller draws a
 * batch of chunks at a time, so neither the GPU upload nor a software rasteriser blocks the main
 * thread for long), each with its surface, a depth pass for see-through drawing and a stencil pass
 * for the cap; and one cap for clipping.
 */
import {
  Box3,
  BufferAttribute,
  BufferGeometry,
  DoubleSide,
  Group,
  Mesh,
  MeshBasicMaterial,
  MeshPhongMaterial,
  Sphere,
  Vector3,
} from 'three';
import type { Plane } from 'three';
import { capMesh, placeCap, stencilMaterial } from './clip-caps.js';
import type { ChunkedMesh, MeshChunk } from './mesh-chunks.js';

export interface MeshAppearance {
  colour: string;
  visible: boolean;
  opacity: number;
}

/** Render order base per mesh: stencil, cap, depth pass, surface. */
const ORDERS_PER_MESH = 4;

/** Geometry for one chunk: views of the mesh's arrays and bounds from the worker, nothing walked here. */
function chunkGeometry(data: ChunkedMesh, c: MeshChunk): BufferGeometry {
  const g = new BufferGeometry();
  const from = c.firstVertex * 3;
  const to = (c.firstVertex + c.vertexCount) * 3;
  g.setAttribute('position', new BufferAttribute(data.positions.subarray(from, to), 3));
  g.setAttribute('normal', new BufferAttribute(data.normals.subarray(from, to), 3));
  g.setIndex(new BufferAttribute(data.index.subarray(c.start, c.start + c.count), 1));
  const [x0, y0, z0, x1, y1, z1] = c.bounds;
  g.boundingBox = new Box3(new Vector3(x0, y0, z0), new Vector3(x1, y1, z1));
  const [cx, cy, cz, r] = c.sphere;
  g.boundingSphere = new Sphere(new Vector3(cx, cy, cz), r);
  return g;
}

export function surfaceMaterial(): MeshPhongMaterial {
  return new MeshPhongMaterial({
    specular: 0x1c1c1c,
    shininess: 24,
    // Both sides: segmentations cut at the scan's edge are open, and a clipped mesh is looked into.
    side: DoubleSide,
  });
}

/**
 * Depth only, drawn just before the surface when it is see-through: then only its nearest layer
 * blends over what lies behind, instead of all its inner layers in triangle order.
 */
export function depthMaterial(): MeshBasicMaterial {
  return new MeshBasicMaterial({ colorWrite: false, transparent: true, side: DoubleSide });
}

export class ViewerMesh {
  readonly root = new Group();
  readonly box: Box3;
  readonly surface = surfaceMaterial();
  private readonly depth = depthMaterial();
  private readonly stencil = stencilMaterial();
  private readonly cap = capMesh();
  private readonly parts: Mesh<BufferGeometry, MeshPhongMaterial>[] = [];
  private readonly stencils: Mesh[] = [];
  private readonly depths: Mesh[] = [];
  /** One group per chunk, to draw chunks selectively. */
  private readonly chunkGroups: Group[] = [];
  /** Per chunk: drawn once, so its buffers are on the GPU. */
  readonly uploaded: boolean[];
  private capAllowed = true;
  private wireframe = false;
  private clipPlane: Plane | null = null;
  /** The first frame with every chunk was drawn. */
  drawn = false;

  constructor(
    readonly id: string,
    private readonly data: ChunkedMesh,
    private readonly slot: number,
  ) {
    this.root.name = id;
    const [x0, y0, z0, x1, y1, z1] = data.bounds;
    this.box = new Box3(new Vector3(x0, y0, z0), new Vector3(x1, y1, z1));
    this.cap.renderOrder = this.order(1);
    this.root.add(this.cap);
    for (const c of data.chunks) this.addChunk(c);
    this.uploaded = data.chunks.map(() => false);
  }

  private order(step: number): number {
    return 10 + ORDERS_PER_MESH * this.slot + step;
  }

  get chunkCount(): number {
    return this.data.chunks.length;
  }

  chunkTriangles(i: number): number {
    return (this.data.chunks[i]?.count ?? 0) / 3;
  }

  /** Wraps the chunk's arrays; its buffers go to the GPU when it is first drawn. */
  private addChunk(c: MeshChunk): void {
    const part = new Mesh(chunkGeometry(this.data, c), this.surface);
    part.renderOrder = 0;
    this.parts.push(part);
    const group = new Group();
    group.add(part);
    this.chunkGroups.push(group);
    this.root.add(group);
  }

  /**
   * The depth and stencil passes of every chunk, made when see-through drawing or clipping first
   * needs them: most meshes never do, and a large mesh has hundreds of chunks to build on arrival.
   */
  private ensurePasses(): void {
    if (this.depths.length > 0) return;
    this.parts.forEach((part, i) => {
      const depth = new Mesh(part.geometry, this.depth);
      depth.renderOrder = this.order(2);
      depth.visible = false;
      const stencil = new Mesh(part.geometry, this.stencil);
      stencil.renderOrder = this.order(0);
      stencil.visible = false;
      this.depths.push(depth);
      this.stencils.push(stencil);
      this.chunkGroups[i]!.add(depth, stencil);
    });
  }

  /**
   * For one progressive frame: only the given parts of chunks (triangles in chunk order), and the
   * cap when the batch ends the mesh (its stencil passes are all drawn by then). `null` shows
   * everything again.
   */
  drawOnly(parts: ReadonlyMap<number, { first: number; count: number }> | null, withCap: boolean): void {
    this.chunkGroups.forEach((g, i) => {
      const part = parts?.get(i);
      g.visible = parts === null || part !== undefined;
      // The depth and stencil passes share the surface's geometry, and so its range.
      const geometry = this.parts[i]!.geometry;
      if (part) geometry.setDrawRange(part.first * 3, part.count * 3);
      else geometry.setDrawRange(0, Infinity);
    });
    this.capAllowed = parts === null || withCap;
    this.setCapsEnabled(true);
  }

  /** The surface parts, for picking by ray. */
  surfaces(): Mesh[] {
    return this.parts;
  }

  get visible(): boolean {
    return this.root.visible;
  }

  setAppearance(look: MeshAppearance): void {
    const m = this.surface;
    m.color.set(look.colour);
    this.cap.material.color.set(look.colour);
    this.root.visible = look.visible && look.opacity > 0;
    const transparent = look.opacity < 1;
    for (const material of [m, this.cap.material, this.stencil]) {
      if (material.transparent !== transparent) material.needsUpdate = true;
      // Stencil and cap follow the surface into three's transparent list, keeping their order.
      material.transparent = transparent;
    }
    m.opacity = look.opacity;
    this.cap.material.opacity = look.opacity;
    for (const p of this.parts) p.renderOrder = transparent ? this.order(3) : 0;
    this.updateVisibility();
  }

  setWireframe(on: boolean): void {
    this.wireframe = on;
    this.surface.wireframe = on;
    this.updateVisibility();
  }

  setClip(plane: Plane | null): void {
    this.clipPlane = plane;
    const planes = plane ? [plane] : [];
    for (const material of [this.surface, this.depth, this.stencil]) {
      if (material.clippingPlanes?.length !== planes.length) material.needsUpdate = true;
      material.clippingPlanes = planes;
    }
    this.updateVisibility();
  }

  /** Caps and stencil passes off (picking draws every object with one material). */
  setCapsEnabled(on: boolean): void {
    // Stencil passes where the plane cuts the mesh; the cap only once they are all drawn.
    const shown =
      on &&
      this.capsShown() &&
      this.clipPlane !== null &&
      placeCap(this.cap, this.clipPlane, this.data.sphere);
    for (const s of this.stencils) s.visible = shown;
    this.cap.visible = shown && this.capAllowed;
  }

  private capsShown(): boolean {
    // A wireframe is looked through: a cap would hide what it shows.
    return this.clipPlane !== null && !this.wireframe;
  }

  private updateVisibility(): void {
    const transparent = this.surface.transparent;
    if ((transparent && !this.wireframe) || this.capsShown()) this.ensurePasses();
    for (const d of this.depths) d.visible = transparent && !this.wireframe;
    this.setCapsEnabled(true);
  }

  dispose(): void {
    for (const p of this.parts) p.geometry.dispose();
    this.cap.geometry.dispose();
    this.cap.material.dispose();
    for (const m of [this.surface, this.depth, this.stencil]) m.dispose();
  }
}
