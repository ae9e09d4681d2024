/**
 * Where a triangle mesh crosses a plane: the outline a slice view draws over the scan. Pure, so it
 * can be checked against hand-made meshes. Works on the viewer's chunked meshes, whose index
 * entries count from their chunk's first vertex: a chunk whose bounds the plane misses is skipped
 * without reading its triangles, and a large mesh is cut a few chunks at a time between other
 * work (cutMeshInSlices), so scrolling through slices never freezes the window.
 */

interface CutChunk {
  /** Index entries [start, start + count), relative to firstVertex. */
  start: number;
  count: number;
  firstVertex: number;
  /** The chunk's own vertex range and box [minX, minY, minZ, maxX, maxY, maxZ], when known. */
  vertexCount?: number;
  bounds?: readonly number[];
}

export interface CutMesh {
  positions: Float32Array;
  index: ArrayLike<number>;
  chunks?: readonly CutChunk[];
}

export interface Plane {
  point: readonly number[];
  /** Unit normal. */
  normal: readonly number[];
}

/** Work done between two yields to the event loop: well within one frame. */
const SLICE_MS = 8;

/** One cut under way: the plane as n.p = offset, the segments so far, and distances reused. */
class Cutter {
  readonly out: number[] = [];
  private readonly n: readonly [number, number, number];
  private readonly offset: number;
  private readonly corner = [0, 0, 0];
  /** Signed distances of all vertices, for chunks that do not say which vertices are theirs. */
  private whole: Float32Array | null = null;

  constructor(
    private readonly mesh: CutMesh,
    plane: Plane,
  ) {
    this.n = [plane.normal[0]!, plane.normal[1]!, plane.normal[2]!];
    this.offset = this.n[0] * plane.point[0]! + this.n[1] * plane.point[1]! + this.n[2] * plane.point[2]!;
  }

  chunks(): readonly CutChunk[] {
    return this.mesh.chunks ?? [{ start: 0, count: this.mesh.index.length, firstVertex: 0 }];
  }

  /**
   * Whether the plane may cross the chunk's box: the box's nearest and farthest corners lie on
   * both sides. A margin keeps rounding from skipping a chunk that touches the plane.
   */
  private mayCross(bounds: readonly number[]): boolean {
    const [nx, ny, nz] = this.n;
    const near =
      nx * (nx >= 0 ? bounds[0]! : bounds[3]!) +
      ny * (ny >= 0 ? bounds[1]! : bounds[4]!) +
      nz * (nz >= 0 ? bounds[2]! : bounds[5]!) -
      this.offset;
    const far =
      nx * (nx >= 0 ? bounds[3]! : bounds[0]!) +
      ny * (ny >= 0 ? bounds[4]! : bounds[1]!) +
      nz * (nz >= 0 ? bounds[5]! : bounds[2]!) -
      this.offset;
    const margin = 1e-6 * (Math.abs(near) + Math.abs(far) + Math.abs(this.offset) + 1);
    return near <= margin && far >= -margin;
  }

  /** Signed distances of the vertices [first, first + count), once per vertex (about six triangles share one). */
  private distances(first: number, count: number): Float32Array {
    const p = this.mesh.positions;
    const [nx, ny, nz] = this.n;
    const dist = new Float32Array(count);
    for (let v = 0, i = first * 3; v < count; v++, i += 3) {
      dist[v] = nx * p[i]! + ny * p[i + 1]! + nz * p[i + 2]! - this.offset;
    }
    return dist;
  }

  /** Adds the segments of one chunk. */
  cut(chunk: CutChunk): void {
    if (chunk.bounds && !this.mayCross(chunk.bounds)) return;
    const { positions, index } = this.mesh;
    let dist: Float32Array;
    // Distances are numbered from `base`: the chunk's first vertex, or 0 for the whole array.
    let base: number;
    if (chunk.vertexCount !== undefined) {
      dist = this.distances(chunk.firstVertex, chunk.vertexCount);
      base = chunk.firstVertex;
    } else {
      this.whole ??= this.distances(0, Math.floor(positions.length / 3));
      dist = this.whole;
      base = 0;
    }
    const out = this.out;
    const corner = this.corner;
    const lerp = (a: number, b: number): void => {
      const da = dist[a - base]!;
      const t = da / (da - dist[b - base]!);
      out.push(
        positions[a * 3]! + t * (positions[b * 3]! - positions[a * 3]!),
        positions[a * 3 + 1]! + t * (positions[b * 3 + 1]! - positions[a * 3 + 1]!),
        positions[a * 3 + 2]! + t * (positions[b * 3 + 2]! - positions[a * 3 + 2]!),
      );
    };
    const end = chunk.start + chunk.count - 2;
    for (let e = chunk.start; e < end; e += 3) {
      corner[0] = chunk.firstVertex + index[e]!;
      corner[1] = chunk.firstVertex + index[e + 1]!;
      corner[2] = chunk.firstVertex + index[e + 2]!;
      let pos = 0;
      for (let c = 0; c < 3; c++) if (dist[corner[c]! - base]! >= 0) pos++;
      if (pos === 0 || pos === 3) continue;
      // The lone corner (the one on the side the other two are not) and its two edges cross the plane.
      const lone = pos === 1 ? 1 : 0;
      for (let c = 0; c < 3; c++) {
        const a = corner[c]!;
        if ((dist[a - base]! >= 0 ? 1 : 0) !== lone) continue;
        lerp(a, corner[(c + 1) % 3]!);
        lerp(a, corner[(c + 2) % 3]!);
        break;
      }
    }
  }
}

/**
 * The segments where the mesh's triangles cross the plane, as [x1, y1, z1, x2, y2, z2, ...] in the
 * mesh's coordinates. A triangle with a corner exactly on the plane counts that corner on the
 * positive side, so an edge lying in the plane is drawn once and never as a dot.
 */
export function cutMesh(mesh: CutMesh, plane: Plane): Float32Array {
  const cutter = new Cutter(mesh, plane);
  for (const chunk of cutter.chunks()) cutter.cut(chunk);
  return Float32Array.from(cutter.out);
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * cutMesh, a few chunks at a time: after about SLICE_MS of work it lets the window handle input
 * and draw before going on. Rejects with the signal's reason once aborted (the slice changed).
 */
export async function cutMeshInSlices(
  mesh: CutMesh,
  plane: Plane,
  signal?: AbortSignal,
): Promise<Float32Array> {
  const cutter = new Cutter(mesh, plane);
  let sliceStart = performance.now();
  for (const chunk of cutter.chunks()) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
    signal?.throwIfAborted();
    cutter.cut(chunk);
  }
  return Float32Array.from(cutter.out);
}
