import { AppError } from '../../../src-shared/errors.js';
import type { Volume } from '../../scans/volume.js';
import type { MeshRequest } from '../processor.js';
import {
  extractIsoSurfaceVoxels,
  voxelToPatient,
  type ExtractedMesh,
  type Mesh,
  type SlabPool,
} from './iso-surface.js';
import { runsOnWorkers } from './job-volume.js';
import { checkBonePieces } from './region-checks.js';
import { isMeshFormat, type MeshFormat } from './mesh-formats.js';
import { meshSettings, tissueOf, type MeshSettings } from './plan.js';
import { simplifyMesh, type SimplifiedMesh } from './simplify.js';
import type { SimplifyPartResult } from './simplify-parts.js';
import type { MeshLayers } from './slab-grid.js';
import { taubinSmooth } from './smooth.js';
import { simplifyProgress, stepOf } from './step-progress.js';
import {
  isPlainAbove,
  levelOf,
  segmentTissue,
  type Thresholds,
  type Tissue,
  type TissueRegion,
} from './tissue.js';

/**
 * One requested mesh's surface, from the volume to simplified triangles in patient coordinates: the
 * steps every mesh of a job goes through (run-job.ts).
 */

/**
 * Slabs a big surface is simplified in (see surfaceOf): a multiple of the workers, so that none sits
 * idle while another does a slab more, and at least four.
 */
const MIN_SIMPLIFY_PARTS = 4;
const simplifyParts = (workers: number): number => workers * Math.ceil(MIN_SIMPLIFY_PARTS / workers);

const NONE_FOUND: Record<Tissue, string> = {
  bone: 'No bone was found in the scan',
  teeth: 'No teeth were found in the scan (no enamel or dentine)',
  'soft-tissue': 'No soft tissue was found in the scan',
  airway: 'No airway was found in the scan',
};

export interface MeshPlan {
  index: number;
  request: MeshRequest;
  format: MeshFormat;
  tissues: Tissue[];
  settings: MeshSettings;
  label: string;
}

export function planMesh(request: MeshRequest, index: number, options: Record<string, unknown>): MeshPlan {
  const format = request.extension.toLowerCase();
  if (!isMeshFormat(format)) {
    throw new AppError('bad-request', `Mesh extension "${request.extension}" is not supported.`);
  }
  const tissues: Tissue[] = [];
  for (const s of request.structures) {
    const t = tissueOf(s);
    if (!t) throw new AppError('bad-request', `Mesh ${index + 1}: the local engine cannot find "${s}".`);
    if (!tissues.includes(t)) tissues.push(t);
  }
  const settings = meshSettings(request.structures, options);
  return { index, request, format, tissues, settings, label: request.structures.join(' + ') };
}

export interface MeshContext {
  volume: Volume;
  thresholds: Thresholds;
  regions: Map<Tissue, TissueRegion>;
  pool: SlabPool;
  signal?: AbortSignal | undefined;
  /** Progress within this mesh, 0..1. */
  at: (fraction: number) => (stage: string) => void;
}

/**
 * Where each step of a mesh starts, as a share of the mesh's part of the job (its progress). The
 * simplification takes the most: on a big CBCT it is most of the mesh's time (a review measured
 * 45 s of it), the extraction and the smoothing a second or two each.
 */
export const MESH_STEPS = { segment: 0, extract: 0.15, smooth: 0.25, simplify: 0.35, write: 0.9 } as const;

/** Milliseconds per stage, for the job's log: `lap(stage)` ends a stage and starts the next. */
export function stageClock(): { ms: Record<string, number>; lap: (stage: string) => void } {
  const ms: Record<string, number> = {};
  let t0 = performance.now();
  const lap = (stage: string): void => {
    const now = performance.now();
    ms[stage] = Math.round(now - t0);
    t0 = now;
  };
  return { ms, lap };
}

/**
 * One tissue's voxels into `c.regions` (unless there already), refused in words when none are found
 * or when its checks (tissue.ts) show it is not what its name says. `label` names the mesh asking.
 */
export async function segmentRegion(
  t: Tissue,
  label: string,
  c: Pick<MeshContext, 'volume' | 'thresholds' | 'regions' | 'pool'>,
): Promise<TissueRegion> {
  const { volume, regions } = c;
  let region = regions.get(t);
  if (!region) {
    const mask = new Uint8Array(new SharedArrayBuffer(volume.data.length));
    const found = isPlainAbove(t) ? await runsOnWorkers(volume, levelOf(t, c.thresholds), c.pool) : undefined;
    region = segmentTissue(volume, t, c.thresholds, mask, found);
    regions.set(t, region);
  }
  if (region.components.kept === 0) {
    throw new AppError('bad-input', `${NONE_FOUND[t]} (for ${label}).`, {
      action: `Check that the scan shows what ${label} asks for, or leave it out.`,
    });
  }
  if (t === 'bone') checkBonePieces(region.components);
  return region;
}

/** A mesh's surface in patient coordinates: its tissues segmented, extracted, smoothed, simplified. */
export async function surfaceOf(
  plan: MeshPlan,
  c: MeshContext,
): Promise<{ simple: SimplifiedMesh; extracted: number; ms: Record<string, number> }> {
  const { volume, regions } = c;
  const { label, settings } = plan;
  const [nx, ny, nz] = volume.dims;
  const { ms, lap } = stageClock();
  const S = MESH_STEPS;
  c.at(S.segment)(`segmenting ${label}`);
  for (const t of plan.tissues) await segmentRegion(t, label, c);
  lap('segment');
  const extracting = stepOf(c.at, S.extract, S.smooth);
  extracting(0, `extracting the surface of ${label}`);
  const mesh = await extractRegions(volume, plan.tissues, regions, c.pool, c.signal, (done, total) =>
    extracting(
      done / total,
      `extracting the surface of ${label}: ${done} of ${total} passes over the scan done`,
    ),
  );
  lap('extract');
  if (c.signal?.aborted) throw new AppError('canceled', 'The job was canceled.');
  const smoothing = stepOf(c.at, S.smooth, S.simplify);
  const iterations = settings.smoothingIterations;
  smoothing(0, `smoothing the surface of ${label}`);
  // Smoothing in voxel space is the same as in patient space (the map is affine and the smoothing a
  // weighted average), and there the scan's extent is a box to clamp to.
  await taubinSmooth(mesh.positions, mesh.indices, iterations, {
    clamp: { min: [-0.5, -0.5, -0.5], max: [nx - 0.5, ny - 0.5, nz - 0.5] },
    run: (task) => c.pool.run(task),
    parts: c.pool.size * 2,
    onIteration: (done) =>
      smoothing(done / iterations, `smoothing the surface of ${label}: ${done} of ${iterations} passes done`),
  });
  lap('smooth');
  voxelToPatient(mesh, volume);
  const extracted = mesh.indices.length / 3;
  const simplifying = simplifyProgress(stepOf(c.at, S.simplify, S.write), label);
  // In slabs on the mesh workers: every core, and meshoptimizer's cost grows faster than the mesh, so
  // at least four (two per worker on two cores, six on three). Measured on the phantom's skull (1.57 million
  // triangles, local-job bench): four slabs took 405-505 ms where two took 539-625, for 10.6 % more
  // triangles (131,542 against 118,972), kept fine along the two more seams; the error bound is the same.
  const simple = await simplifyMesh(mesh, settings.decimateMaxError, {
    parts: simplifyParts(c.pool.size),
    runPart: (task) => c.pool.run(task) as Promise<SimplifyPartResult>,
    ...(mesh.layers ? { layers: mesh.layers } : {}),
    onStep: simplifying.onStep,
  }).finally(simplifying.stop);
  lap('simplify');
  if (c.signal?.aborted) throw new AppError('canceled', 'The job was canceled.');
  return { simple, extracted, ms };
}

/**
 * One surface for the requested tissues. Bone, teeth and soft tissue are all "denser than a
 * threshold" and nested (validation refuses merging two of them: the result would be the outer one's
 * surface); a merged mask is still handled here. Airway is air, inside out: its surface is extracted
 * on its own and added to the same mesh, as the service does when one mesh names several structures.
 */
async function extractRegions(
  volume: Volume,
  tissues: Tissue[],
  regions: Map<Tissue, TissueRegion>,
  pool: SlabPool,
  signal: AbortSignal | undefined,
  /** Told as each pass over the volume ends (done of total, for every surface of the mesh). */
  onPasses: (done: number, total: number) => void,
): Promise<Mesh & { layers?: MeshLayers }> {
  const parts: ExtractedMesh[] = [];
  const dense = tissues.filter((x) => x !== 'airway');
  // Airway is a second surface, extracted after the dense one: its passes come after the other's.
  const surfaces = (dense.length > 0 ? 1 : 0) + (tissues.includes('airway') ? 1 : 0);
  const onPass = (done: number, passes: number): void =>
    onPasses(parts.length * passes + done, surfaces * passes);
  const opts = { pool, onPass, ...(signal ? { signal } : {}) };
  if (dense.length > 0) {
    const first = regions.get(dense[0] as Tissue) as TissueRegion;
    const iso = Math.min(...dense.map((d) => (regions.get(d) as TissueRegion).iso));
    if (dense.length === 1 && first.runs) {
      // Its runs say what is inside with far fewer numbers than the mask's byte per voxel.
      parts.push(
        await extractIsoSurfaceVoxels(volume, iso, { ...opts, runs: first.runs, polarity: 'above' }),
      );
    } else {
      let mask = first.mask;
      if (dense.length > 1) {
        mask = new Uint8Array(new SharedArrayBuffer(mask.length));
        for (const d of dense) {
          const m = (regions.get(d) as TissueRegion).mask;
          for (let i = 0; i < m.length; i++) mask[i] = (mask[i] as number) | (m[i] as number);
        }
      }
      parts.push(await extractIsoSurfaceVoxels(volume, iso, { ...opts, mask, polarity: 'above' }));
    }
  }
  if (tissues.includes('airway')) {
    const r = regions.get('airway') as TissueRegion;
    parts.push(await extractIsoSurfaceVoxels(volume, r.iso, { ...opts, mask: r.mask, polarity: 'below' }));
  }
  // One surface keeps the extraction's layers (simplify cuts it along them); joined ones do not.
  return parts.length === 1 ? (parts[0] as ExtractedMesh) : concatMeshes(parts);
}

function concatMeshes(parts: Mesh[]): Mesh {
  const positions = new Float32Array(parts.reduce((n, p) => n + p.positions.length, 0));
  const indices = new Uint32Array(parts.reduce((n, p) => n + p.indices.length, 0));
  let vo = 0;
  let io = 0;
  for (const p of parts) {
    positions.set(p.positions, vo * 3);
    for (let i = 0; i < p.indices.length; i++) indices[io + i] = (p.indices[i] as number) + vo;
    vo += p.positions.length / 3;
    io += p.indices.length;
  }
  return { positions, indices };
}
