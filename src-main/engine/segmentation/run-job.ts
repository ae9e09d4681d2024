import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../../src-shared/errors.js';
import type { Logger } from '../../logging/logger.js';
import { silentLogger } from '../../logging/logger.js';
import type { Volume } from '../../scans/volume.js';
import type {
  MeshRequest,
  ProcessedMesh,
  ProcessorJob,
  ProcessorProgress,
  ProcessorResult,
} from '../processor.js';
import {
  createSlabPool,
  extractIsoSurfaceVoxels,
  voxelToPatient,
  type ExtractedMesh,
  type Mesh,
  type SlabPool,
} from './iso-surface.js';
import type { MeshLayers } from './slab-grid.js';
import { DENTITION_BAND_MM, DENTITION_MIN_HU } from './dentition.js';
import { countSurfaces } from './mesh-checks.js';
import { isMeshFormat, type MeshFormat } from './mesh-formats.js';
import { writeMesh } from './mesh-writers.js';
import { meshSettings, structureNote, tissueOf, validateSpec, type MeshSettings } from './plan.js';
import { simplifyMesh, type SimplifiedMesh } from './simplify.js';
import type { SimplifyPartResult } from './simplify-parts.js';
import { taubinSmooth } from './smooth.js';
import {
  deriveThresholds,
  isPlainAbove,
  levelOf,
  segmentTissue,
  type Thresholds,
  type Tissue,
  type TissueRegion,
} from './tissue.js';
import { unpackInput } from './unpack.js';
import { countOnWorkers, readJobVolume, runsOnWorkers } from './job-volume.js';

interface RunContext {
  logger?: Logger;
  workers: number;
  /** Script of the slab workers (resolved by the thread that can build it); default: workerScript(). */
  meshWorkerScript?: string;
  /** Mesh workers started ahead of the job (closed with it); otherwise they start here. */
  pool?: Promise<SlabPool>;
  onProgress?: (p: ProcessorProgress) => void;
  signal?: AbortSignal;
}

const NONE_FOUND: Record<Tissue, string> = {
  bone: 'No bone was found in the scan',
  teeth: 'No teeth were found in the scan (no enamel or dentine)',
  'soft-tissue': 'No soft tissue was found in the scan',
  airway: 'No airway was found in the scan',
};

/**
 * The whole local segmentation of one job: unpack, read the volume, derive thresholds from its
 * histogram, then for each requested mesh segment, extract, smooth, simplify and write.
 * Runs in the job worker thread (job-worker.entry.ts); the extraction fans out to slab workers.
 */
export async function runSegmentationJob(job: ProcessorJob, ctx: RunContext): Promise<ProcessorResult> {
  const log = ctx.logger ?? silentLogger;
  const progress = (fraction: number, stage: string): void => ctx.onProgress?.({ fraction, stage });
  const checkAbort = (): void => {
    if (ctx.signal?.aborted) throw new AppError('canceled', 'The job was canceled.');
  };
  // The same refusals as at job creation, also for callers that run a job without creating it first.
  const refusal = validateSpec(job);
  if (refusal) throw new AppError('bad-request', refusal);
  const input = job.inputs.find((i) => i.name === 'cbct');
  if (!input) throw new AppError('bad-request', 'The job has no "cbct" input.');
  // Everything that can be wrong with the request is found before minutes of work, not after.
  const plans = job.meshes.map((request, m) => planMesh(request, m, job.options));

  const ms: Record<string, number> = {};
  let t0 = performance.now();
  const lap = (stage: string): void => {
    const now = performance.now();
    ms[stage] = Math.round(now - t0);
    t0 = now;
  };
  // The mesh workers start now (if not before): they warm up the simplifier while this thread reads.
  const pool = await (ctx.pool ?? createSlabPool(ctx.workers, ctx.meshWorkerScript));
  const results: ProcessedMesh[] = [];
  try {
    await mkdir(job.workDir, { recursive: true });
    progress(0.01, 'unpacking the scan');
    const { files, source } = await unpackInput(input, job.workDir, ctx.signal);
    lap('unpack');
    checkAbort();
    progress(0.05, `reading ${files.length} DICOM file${files.length === 1 ? '' : 's'}`);
    const volume = await readJobVolume(files, source, pool, ctx.signal);
    lap('read');
    checkAbort();
    progress(0.35, 'deriving thresholds from the histogram');
    const thresholds = deriveThresholds(
      volume.data,
      volume.modality,
      await countOnWorkers(volume.data, pool),
    );
    lap('thresholds');
    log.info('thresholds', { ...thresholds, dims: volume.dims, spacing: volume.spacing, ms });
    const regions = new Map<Tissue, TissueRegion>();
    for (const [m, plan] of plans.entries()) {
      checkAbort();
      // Keep only the regions this or a later mesh needs: each costs a byte per voxel.
      const later = new Set(plans.slice(m).flatMap((p) => p.tissues));
      for (const t of regions.keys()) if (!later.has(t)) regions.delete(t);
      const at = (f: number): ((stage: string) => void) => {
        return (stage) => progress(0.4 + (0.6 * (m + f)) / plans.length, stage);
      };
      const made = await produceMesh(plan, {
        volume,
        thresholds,
        regions,
        pool,
        workDir: job.workDir,
        signal: ctx.signal,
        at,
      });
      log.info('mesh written', { mesh: m + 1, ...made.log });
      results.push(made.result);
    }
  } finally {
    await pool.close();
  }
  progress(1, 'done');
  return { meshes: results };
}

interface MeshPlan {
  index: number;
  request: MeshRequest;
  format: MeshFormat;
  tissues: Tissue[];
  settings: MeshSettings;
  label: string;
}

function planMesh(request: MeshRequest, index: number, options: Record<string, unknown>): MeshPlan {
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

interface MeshContext {
  volume: Volume;
  thresholds: Thresholds;
  regions: Map<Tissue, TissueRegion>;
  pool: SlabPool;
  workDir: string;
  signal?: AbortSignal | undefined;
  /** Progress within this mesh, 0..1. */
  at: (fraction: number) => (stage: string) => void;
}

/** One requested mesh: segment its tissues, extract, smooth, simplify, write, and say what was done. */
async function produceMesh(
  plan: MeshPlan,
  c: MeshContext,
): Promise<{ result: ProcessedMesh; log: Record<string, unknown> }> {
  const { regions } = c;
  const { label, settings } = plan;
  const { simple, extracted, ms } = await surfaceOf(plan, c);
  const t0 = performance.now();
  const name = plan.request.structures.join('+').replace(/[^a-z0-9_+-]/gi, '_');
  const path = join(c.workDir, `mesh-${plan.index + 1}-${name}${plan.format}`);
  c.at(0.85)(`writing ${label}${plan.format}`);
  const written = await writeMesh(simple, path, plan.format);
  ms.write = Math.round(performance.now() - t0);
  const triangles = written.triangles;
  // Counted on what was written (after smoothing and simplification), so the note matches the file.
  const pieces = countSurfaces(simple);
  const what = plan.request.structures.map(structureNote).join('; ');
  const how = plan.tissues.map((t) => regionNote(regions.get(t) as TissueRegion, c.thresholds)).join('; ');
  const e = settings.decimateMaxError;
  const size =
    e <= 0
      ? `${triangles} triangles (not simplified)`
      : simple.unsimplified
        ? `${triangles} triangles (not simplified: no simplification within ${e} mm kept the surface edge-manifold)`
        : `${triangles} triangles (from ${extracted}, simplified within ${e} mm)`;
  const surfaces = `${pieces} separate surface${pieces === 1 ? '' : 's'} in the file`;
  const note = `${what}. ${how}; ${settings.smoothingIterations} smoothing iterations; ${size}; ${surfaces}.`;
  return {
    result: { path, note, triangles },
    log: {
      triangles,
      surfaces: pieces,
      voxelPieces: plan.tissues.map((t) => (regions.get(t) as TissueRegion).components),
      extracted,
      bytes: written.bytes,
      simplifyRounds: simple.rounds,
      lockedVertices: simple.lockedVertices,
      splitVertices: simple.splitVertices,
      simplifyParts: simple.parts,
      seamVertices: simple.seamVertices,
      ms,
    },
  };
}

/** A mesh's surface in patient coordinates: its tissues segmented, extracted, smoothed, simplified. */
async function surfaceOf(
  plan: MeshPlan,
  c: MeshContext,
): Promise<{ simple: SimplifiedMesh; extracted: number; ms: Record<string, number> }> {
  const { volume, regions } = c;
  const { label, settings } = plan;
  const [nx, ny, nz] = volume.dims;
  const ms: Record<string, number> = {};
  let t0 = performance.now();
  const lap = (stage: string): void => {
    const now = performance.now();
    ms[stage] = Math.round(now - t0);
    t0 = now;
  };
  c.at(0)(`segmenting ${label}`);
  for (const t of plan.tissues) {
    if (!regions.has(t)) {
      const mask = new Uint8Array(new SharedArrayBuffer(volume.data.length));
      const found = isPlainAbove(t)
        ? await runsOnWorkers(volume, levelOf(t, c.thresholds), c.pool)
        : undefined;
      regions.set(t, segmentTissue(volume, t, c.thresholds, mask, found));
    }
    if ((regions.get(t) as TissueRegion).components.kept === 0) {
      throw new AppError('bad-input', `${NONE_FOUND[t]} (for ${label}).`, {
        action: `Check that the scan shows what ${label} asks for, or leave it out.`,
      });
    }
  }
  lap('segment');
  c.at(0.3)(`extracting the surface of ${label}`);
  const mesh = await extractRegions(volume, plan.tissues, regions, c.pool, c.signal);
  lap('extract');
  if (c.signal?.aborted) throw new AppError('canceled', 'The job was canceled.');
  c.at(0.6)(`smoothing and simplifying ${label}`);
  // Smoothing in voxel space is the same as in patient space (the map is affine and the smoothing a
  // weighted average), and there the scan's extent is a box to clamp to.
  await taubinSmooth(mesh.positions, mesh.indices, settings.smoothingIterations, {
    clamp: { min: [-0.5, -0.5, -0.5], max: [nx - 0.5, ny - 0.5, nz - 0.5] },
    run: (task) => c.pool.run(task),
    parts: c.pool.size * 2,
  });
  lap('smooth');
  voxelToPatient(mesh, volume);
  const extracted = mesh.indices.length / 3;
  // In slabs on the mesh workers: both cores, and meshoptimizer's cost grows faster than the mesh.
  const simple = await simplifyMesh(mesh, settings.decimateMaxError, {
    parts: Math.max(2, c.pool.size),
    runPart: (task) => c.pool.run(task) as Promise<SimplifyPartResult>,
    ...(mesh.layers ? { layers: mesh.layers } : {}),
  });
  lap('simplify');
  if (c.signal?.aborted) throw new AppError('canceled', 'The job was canceled.');
  return { simple, extracted, ms };
}

/**
 * A small made-up scan taken through the same steps as a real skull, by a job worker made ready
 * ahead of its job (job-worker.entry.ts). A new worker runs every step's code for the first time:
 * V8 runs it unoptimised at first and optimises it only once it has run a while, so the real
 * scan's first pass of each step would be the slow one (measured on the 140-slice phantom:
 * extraction 490 ms cold, 220 ms warm). Rehearsed here, that first pass happens on a scan of a few
 * hundred thousand voxels while the client still packs and uploads. `stop` is asked between steps:
 * a job that comes meanwhile does not wait for the rest. Returns the triangles made (0 when cut short).
 */
export async function rehearse(pool: SlabPool, signal: AbortSignal): Promise<number> {
  const volume = rehearsalVolume();
  const hist = await countOnWorkers(volume.data, pool);
  if (signal.aborted) return 0;
  const thresholds = deriveThresholds(volume.data, volume.modality, hist);
  const plan = planMesh({ extension: '.stl', structures: ['skull'] }, 0, {});
  const c: MeshContext = {
    volume,
    thresholds,
    regions: new Map(),
    pool,
    workDir: '',
    at: () => () => {},
    signal,
  };
  try {
    return (await surfaceOf(plan, c)).simple.indices.length / 3;
  } catch (e) {
    if (!signal.aborted) throw e;
    return 0;
  }
}

/**
 * A head-sized box of CT values at 1 mm: air around a ball of soft tissue inside a rippled shell of
 * bone, on the same kind of array as a scan's (Int16, shared).
 */
function rehearsalVolume(): Volume {
  const [nx, ny, nz] = [64, 64, 32];
  const data = new Int16Array(new SharedArrayBuffer(nx * ny * nz * 2));
  for (let z = 0, i = 0; z < nz; z++) {
    for (let y = 0; y < ny; y++) {
      for (let x = 0; x < nx; x++, i++) {
        const [dx, dy, dz] = [x - nx / 2, y - ny / 2, (z - nz / 2) * 1.6];
        const r = Math.sqrt(dx * dx + dy * dy + dz * dz) + 2 * Math.sin(x * 0.4) * Math.cos(y * 0.3);
        data[i] = r > 29 ? -1000 : r > 26 ? 1200 + ((x * 7 + y * 13 + z * 5) % 200) : 40 + ((x + y) % 30);
      }
    }
  }
  return {
    data,
    dims: [nx, ny, nz],
    spacing: [1, 1, 1],
    origin: [0, 0, 0],
    rowDir: [1, 0, 0],
    colDir: [0, 1, 0],
    sliceDir: [0, 0, 1],
    modality: 'CT',
  };
}

/** How a tissue was found. Its voxel pieces are not counted here: the note counts the file's surfaces. */
function regionNote(r: TissueRegion, t: Thresholds): string {
  const side = r.polarity === 'above' ? 'above' : 'below';
  const s = t.scale;
  let source = "from the scan's histogram";
  if (r.tissue === 'teeth' && s) {
    const band = r.band;
    const where = !band
      ? ''
      : band.scanHeight <= DENTITION_BAND_MM
        ? `; the scan is no higher than a dentition (${DENTITION_BAND_MM} mm), so where it lies was not checked`
        : `; ${Math.floor(band.inBand * 1000) / 10} % of it within one ${DENTITION_BAND_MM} mm band, as teeth are`;
    source = s.hounsfield
      ? `Hounsfield units: enamel and dentine, above compact bone${where}`
      : `${DENTITION_MIN_HU} HU scaled by the scan's air (${formatValue(s.air)}) and soft-tissue (${formatValue(s.soft)}) grey values${where}`;
  }
  const small = r.components.components - r.components.kept;
  const dropped = small > 0 ? `, ${small} small loose piece${small === 1 ? '' : 's'} left out` : '';
  return `${r.tissue}: grey value ${side} ${formatValue(r.iso)} (${source})${dropped}`;
}

const formatValue = (v: number): string => (Number.isInteger(v * 2) ? String(v) : v.toFixed(1));

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
  signal?: AbortSignal,
): Promise<Mesh & { layers?: MeshLayers }> {
  const parts: ExtractedMesh[] = [];
  const dense = tissues.filter((x) => x !== 'airway');
  const opts = { pool, ...(signal ? { signal } : {}) };
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
