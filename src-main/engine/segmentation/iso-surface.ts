import { totalmem } from 'node:os';
import type { Volume } from '../../scans/volume.js';
import { AppError } from '../../../src-shared/errors.js';
import type { InsideRuns } from './components.js';
import { countSlab, packSlab, type MeshTask } from './extract-slab.js';
import { fillSlab } from './fill-slab.js';
import {
  bitWords,
  gridOf,
  type Grid,
  type GridParams,
  type MeshLayers,
  type RowTables,
  type SlabRange,
} from './slab-grid.js';
import type { SimplifyPartResult, SimplifyPartTask } from './simplify-parts.js';
import type { SmoothTask } from './smooth.js';
import type { VolumeReply, VolumeTask } from './volume-tasks.js';
import { WorkerPool, defaultWorkerCount, meshWorkerScript } from './worker-pool.js';

/** An indexed triangle mesh: xyz per vertex, three vertex indices per triangle, counter-clockwise seen from outside. */
export interface Mesh {
  positions: Float32Array;
  indices: Uint32Array;
}

/** A surface as the extraction made it, with where its layers lie (slab-grid.ts), for cutting it up. */
export interface ExtractedMesh extends Mesh {
  layers: MeshLayers;
}

/** The mesh workers: slab extraction passes and smoothing steps (no reply), slab simplification. */
export type SlabTask = MeshTask | SmoothTask | SimplifyPartTask | VolumeTask;
export type SlabReply = null | SimplifyPartResult | VolumeReply;
export type SlabPool = WorkerPool<SlabTask, SlabReply>;

export async function createSlabPool(workers = defaultWorkerCount(), script?: string): Promise<SlabPool> {
  return new WorkerPool<SlabTask, SlabReply>(script ?? (await meshWorkerScript()), workers);
}

export interface IsoSurfaceOptions {
  /** Inside is value > iso ('above', the default: bone, teeth) or value < iso ('below': air). */
  polarity?: 'above' | 'below';
  /** Inside is mask !== 0 instead (one byte per voxel, same layout as the data); values still place vertices. */
  mask?: Uint8Array | null;
  /** The mask's voxels as runs (components.ts), read instead of it: far fewer numbers than voxels. */
  runs?: InsideRuns;
  /** Close the surface where the region reaches the edge of the volume (default true). */
  closeBorders?: boolean;
  /** Worker threads to use when no pool is given; 0 runs in the calling thread. */
  workers?: number;
  pool?: SlabPool;
  signal?: AbortSignal;
  /** Most triangles the surface may have (default: what half this computer's memory carries through). */
  maxTriangles?: number;
  /** Told as each of the extraction's passes over the volume ends (done of passes), for progress. */
  onPass?: (done: number, passes: number) => void;
}

/** The extraction's passes over the volume: which cubes are inside, how many triangles, the triangles. */
const PASSES = 3;

/**
 * The iso-surface of a volume, vertices in patient coordinates (mm, DICOM LPS), closed and
 * edge-manifold where it does not reach the border (and there too with closeBorders).
 * Slabs of slices are extracted in parallel by worker threads that share the volume's memory; the
 * returned arrays live on SharedArrayBuffers, allocated once at their final size.
 */
export async function extractIsoSurface(
  volume: Volume,
  iso: number,
  opts: IsoSurfaceOptions = {},
): Promise<ExtractedMesh> {
  const mesh = await extractIsoSurfaceVoxels(volume, iso, opts);
  voxelToPatient(mesh, volume);
  return mesh;
}

/** Like extractIsoSurface, with vertices left in voxel index coordinates (x = column, y = row, z = slice). */
export async function extractIsoSurfaceVoxels(
  volume: Pick<Volume, 'data' | 'dims'>,
  iso: number,
  opts: IsoSurfaceOptions = {},
): Promise<ExtractedMesh> {
  const [nx, ny, nz] = volume.dims;
  if (volume.data.length !== nx * ny * nz) {
    throw new AppError(
      'internal',
      `Volume data holds ${volume.data.length} values, not ${nx} x ${ny} x ${nz}.`,
    );
  }
  if (opts.mask && opts.mask.length !== volume.data.length) {
    throw new AppError('internal', 'The mask does not have one byte per voxel.');
  }
  if (!Number.isFinite(iso)) throw new AppError('internal', `Iso value ${iso} is not a number.`);
  const canceled = (): boolean => opts.signal?.aborted === true;
  const cancelError = (): AppError => new AppError('canceled', 'The surface extraction was canceled.');
  if (canceled()) throw cancelError();
  const closeBorders = opts.closeBorders ?? true;
  const empty: ExtractedMesh = {
    positions: new Float32Array(0),
    indices: new Uint32Array(0),
    layers: {
      triangleStart: new Float64Array(1),
      inPlaneStart: new Float64Array(0),
      inPlaneEnd: new Float64Array(0),
    },
  };
  if (nx < 2 || ny < 2 || nz < 2) return empty;
  const inThread = !opts.pool && opts.workers === 0;
  const grid: GridParams = {
    data: inThread ? volume.data : toShared(volume.data),
    dims: volume.dims,
    iso,
    polarity: opts.polarity ?? 'above',
    mask: opts.mask ? (inThread ? opts.mask : toShared(opts.mask)) : null,
    runs: opts.runs ?? null,
    closeBorders,
  };
  const g = gridOf(grid);
  const workers = opts.pool ? opts.pool.size : (opts.workers ?? defaultWorkerCount());
  // More slabs than threads evens out slabs where the surface is dense and ones where it is empty.
  const count = inThread ? 1 : Math.min(g.PZ, workers * 4);
  const ranges: SlabRange[] = Array.from({ length: count }, (_, s) => ({
    k0: Math.round((g.PZ * s) / count),
    k1: Math.round((g.PZ * (s + 1)) / count),
  }));
  const rows = g.PZ * g.PY;
  const mem = (bytes: number): ArrayBuffer | SharedArrayBuffer =>
    inThread ? new ArrayBuffer(bytes) : new SharedArrayBuffer(bytes);
  const bits = new Int32Array(mem(bitWords(g) * 4));
  const countBuf = mem(rows * 16);
  const counts: RowTables<Int32Array> = {
    x: new Int32Array(countBuf, 0, rows),
    y: new Int32Array(countBuf, rows * 4, rows),
    z: new Int32Array(countBuf, rows * 8, rows),
    t: new Int32Array(countBuf, rows * 12, rows),
  };

  if (inThread) {
    const r = ranges[0] as SlabRange;
    packSlab(grid, r, bits);
    countSlab(grid, r, bits, counts);
    const { offsets, vertices, triangles } = prefixSums(counts, g, false, opts.maxTriangles);
    const out = allocate(vertices, triangles, false);
    fillSlab(grid, r, bits, offsets, out.positions, out.indices);
    return { ...out, layers: layersOf(offsets, g, triangles) };
  }

  const pool = opts.pool ?? (await createSlabPool(workers));
  let onAbort = (): void => {};
  const abort = new Promise<never>((_, reject) => {
    onAbort = () => reject(cancelError());
    opts.signal?.addEventListener('abort', onAbort, { once: true });
  });
  const all = (task: (range: SlabRange) => MeshTask): Promise<unknown> =>
    Promise.race([Promise.all(ranges.map((range) => pool.run(task(range)))), abort]);
  try {
    await all((range) => ({ kind: 'bits', grid, range, bits }));
    opts.onPass?.(1, PASSES);
    await all((range) => ({ kind: 'count', grid, range, bits, counts }));
    opts.onPass?.(2, PASSES);
    const { offsets, vertices, triangles } = prefixSums(counts, g, true, opts.maxTriangles);
    const out = allocate(vertices, triangles, true);
    await all((range) => ({ kind: 'fill', grid, range, bits, offsets, ...out }));
    opts.onPass?.(3, PASSES);
    return { ...out, layers: layersOf(offsets, g, triangles) };
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    if (!opts.pool) await pool.close();
  }
}

/**
 * Global vertex and triangle offsets of every row. Vertices are numbered plane by plane: the x edges
 * of each row of the plane, then its y edges, then the z edges to the next plane.
 */
function prefixSums(
  c: RowTables<Int32Array>,
  g: Grid,
  shared = false,
  limit = memoryTriangles(),
): { offsets: RowTables<Float64Array>; vertices: number; triangles: number } {
  const rows = g.PZ * g.PY;
  const buf = shared ? new SharedArrayBuffer(rows * 32) : new ArrayBuffer(rows * 32);
  const o: RowTables<Float64Array> = {
    x: new Float64Array(buf, 0, rows),
    y: new Float64Array(buf, rows * 8, rows),
    z: new Float64Array(buf, rows * 16, rows),
    t: new Float64Array(buf, rows * 24, rows),
  };
  let v = 0;
  let t = 0;
  for (let K = 0; K < g.PZ; K++) {
    const base = K * g.PY;
    for (const axis of ['x', 'y', 'z'] as const) {
      for (let J = 0; J < g.PY; J++) {
        o[axis][base + J] = v;
        v += c[axis][base + J] as number;
      }
    }
    for (let J = 0; J < g.PY; J++) {
      o.t[base + J] = t;
      t += c.t[base + J] as number;
    }
  }
  if (t > limit) {
    throw new AppError(
      'bad-input',
      `The surface would have ${(t / 1e6).toFixed(1)} million triangles, more than this computer's memory can smooth and simplify (about ${Math.max(1, Math.round(limit / 1e6))} million here): at this level the scan is noise or a lattice finer than anatomy.`,
      {
        action:
          'Check the scan (a noisy or damaged series), use one of coarser voxels, or use a remote segmentation service.',
      },
    );
  }
  if (v > 0xffffffff || t * 3 > 2 ** 31) {
    throw new AppError(
      'bad-input',
      `The surface would have ${t} triangles, more than a mesh file can hold.`,
      {
        action: 'Use a higher iso value or a smaller volume.',
      },
    );
  }
  return { offsets: o, vertices: v, triangles: t };
}

/**
 * Memory one extracted triangle costs on its way to the file (extraction, smoothing, simplification),
 * in bytes: a one-voxel lattice of 21 million triangles peaked at 4.9 GB (a review). A 3 GB volume
 * could make ten times that, past any machine's memory: the job is refused in words instead.
 */
const BYTES_PER_TRIANGLE = 240;
const memoryTriangles = (): number => Math.floor((totalmem() * 0.5) / BYTES_PER_TRIANGLE);

function layersOf(o: RowTables<Float64Array>, g: Grid, triangles: number): MeshLayers {
  const layers: MeshLayers = {
    triangleStart: new Float64Array(g.PZ + 1),
    inPlaneStart: new Float64Array(g.PZ),
    inPlaneEnd: new Float64Array(g.PZ),
  };
  for (let K = 0; K < g.PZ; K++) {
    layers.triangleStart[K] = o.t[K * g.PY] as number;
    layers.inPlaneStart[K] = o.x[K * g.PY] as number;
    layers.inPlaneEnd[K] = o.z[K * g.PY] as number;
  }
  layers.triangleStart[g.PZ] = triangles;
  return layers;
}

function allocate(vertices: number, triangles: number, shared: boolean): Mesh {
  const pb = vertices * 12;
  const ib = triangles * 12;
  return {
    positions: new Float32Array(shared ? new SharedArrayBuffer(pb) : new ArrayBuffer(pb)),
    indices: new Uint32Array(shared ? new SharedArrayBuffer(ib) : new ArrayBuffer(ib)),
  };
}

/** Copies a typed array onto a SharedArrayBuffer unless it already lives on one, so workers can read it in place. */
export function toShared<A extends Int16Array | Float32Array | Uint8Array>(a: A): A {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const Ctor = a.constructor as new (buf: SharedArrayBuffer) => A;
  const out = new Ctor(new SharedArrayBuffer(a.byteLength));
  out.set(a as never);
  return out;
}

/**
 * Maps voxel index coordinates to patient coordinates in place. When the volume's axes form a
 * left-handed frame (slices stacked against the normal), the triangles are flipped so that they
 * still face outward in patient space.
 */
export function voxelToPatient(
  mesh: Mesh,
  v: Pick<Volume, 'spacing' | 'origin' | 'rowDir' | 'colDir' | 'sliceDir'>,
): void {
  const [sx, sy, sz] = v.spacing;
  const a = v.rowDir.map((c) => c * sx) as [number, number, number];
  const b = v.colDir.map((c) => c * sy) as [number, number, number];
  const c = v.sliceDir.map((d) => d * sz) as [number, number, number];
  const det =
    a[0] * (b[1] * c[2] - b[2] * c[1]) -
    a[1] * (b[0] * c[2] - b[2] * c[0]) +
    a[2] * (b[0] * c[1] - b[1] * c[0]);
  // A stack along the image plane would flatten every triangle (intake refuses such positions;
  // this holds for any volume handed here).
  if (!(Math.abs(det) > 1e-3 * Math.abs(sx * sy * sz)))
    throw new AppError(
      'bad-input',
      'The slice positions and the image orientation do not span a volume, so no surface can be placed in the patient.',
      {
        action: 'Export the series again from the scanner or viewer it came from.',
      },
    );
  const [ox, oy, oz] = v.origin;
  const p = mesh.positions;
  for (let i = 0; i < p.length; i += 3) {
    const x = p[i] as number;
    const y = p[i + 1] as number;
    const z = p[i + 2] as number;
    p[i] = ox + x * a[0] + y * b[0] + z * c[0];
    p[i + 1] = oy + x * a[1] + y * b[1] + z * c[1];
    p[i + 2] = oz + x * a[2] + y * b[2] + z * c[2];
  }
  if (det < 0) flipWinding(mesh.indices);
}

function flipWinding(indices: Uint32Array): void {
  for (let i = 0; i < indices.length; i += 3) {
    const t = indices[i + 1] as number;
    indices[i + 1] = indices[i + 2] as number;
    indices[i + 2] = t;
  }
}
