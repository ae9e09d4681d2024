import { join } from 'node:path';
import { AppError } from '../../../src-shared/errors.js';
import type { Logger } from '../../logging/logger.js';
import { silentLogger } from '../../logging/logger.js';
import type { ProcessedMesh, ProcessorJob, ProcessorProgress, ProcessorResult } from '../processor.js';
import { createSlabPool, type SlabPool } from './iso-surface.js';
import { DENTITION_BAND_MM, DENTITION_MIN_HU, SOFT_TISSUE_PEAK_HU, type BandProfile } from './dentition.js';
import { COMPACT_BONE_MAX_HU, METAL_MIN_HU, type DentitionPlace } from './dentition-place.js';
import { countSurfaces } from './mesh-checks.js';
import { writeMesh } from './mesh-writers.js';
import { structureNote, validateSpec } from './plan.js';
import { resolutionRefusal } from './class-evidence.js';
import {
  MESH_STEPS,
  planMesh,
  segmentRegion,
  stageClock,
  surfaceOf,
  type MeshContext,
  type MeshPlan,
} from './mesh-surface.js';
import { deriveThresholds, isPlainAbove, type Thresholds, type Tissue, type TissueRegion } from './tissue.js';
import { unpackInput } from './unpack.js';
import { readJobVolume } from './job-volume.js';

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

/**
 * The whole local segmentation of one job: unpack, read the volume, derive thresholds from its
 * histogram, then for each requested mesh segment, extract, smooth, simplify and write.
 * Runs in the job worker thread (job-worker.entry.ts); the extraction fans out to slab workers.
 */
export async function runSegmentationJob(job: ProcessorJob, ctx: RunContext): Promise<ProcessorResult> {
  const log = ctx.logger ?? silentLogger;
  // Never backwards, whatever a step reports: a bar that jumps back reads as work lost.
  let reached = 0;
  const progress = (fraction: number, stage: string): void => {
    reached = Math.max(reached, Math.min(1, fraction));
    ctx.onProgress?.({ fraction: reached, stage });
  };
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

  const { ms, lap } = stageClock();
  // The mesh workers start now (if not before): they warm up the simplifier while this thread reads.
  const pool = await (ctx.pool ?? createSlabPool(ctx.workers, ctx.meshWorkerScript));
  const results: ProcessedMesh[] = [];
  try {
    progress(0.01, 'unpacking the scan');
    const { files, source } = await unpackInput(input, job.workDir, ctx.signal);
    lap('unpack');
    checkAbort();
    const reading = `reading ${files.length} DICOM file${files.length === 1 ? '' : 's'}`;
    progress(0.05, reading);
    // Planes are decoded here, or (uploaded uncompressed) queued here and copied on the mesh workers.
    const { volume, histogram } = await readJobVolume(files, source, pool, ctx.signal, (step, done, total) =>
      step === 'planes'
        ? progress(0.05 + (0.15 * done) / total, `${reading}: ${done} of ${total} slices read`)
        : progress(0.2 + (0.15 * done) / total, `${reading}: ${done} of ${total} parts of the volume copied`),
    );
    lap('read');
    checkAbort();
    progress(0.35, 'deriving thresholds from the histogram');
    const thresholds = deriveThresholds(volume.data, volume.modality, await histogram, volume);
    lap('thresholds');
    log.info('thresholds', { ...thresholds, dims: volume.dims, spacing: volume.spacing, ms });
    // A class the histogram or the voxel size shows is not there is refused before any surface.
    const refusals = new Map<Tissue, AppError>();
    for (const t of new Set(plans.flatMap((p) => p.tissues))) {
      const absent = thresholds.absent[t] ?? resolutionRefusal(t, volume.spacing);
      if (absent) refusals.set(t, new AppError('bad-input', absent.message, { action: absent.action }));
    }
    const refusalOf = (plan: MeshPlan): AppError | undefined =>
      plan.tissues.map((t) => refusals.get(t)).find((e) => e !== undefined);
    // Every mesh refused: the job fails in those words. Otherwise the others are made (partial result).
    const unlessAllRefused = (): void => {
      const first = refusalOf(plans[0] as MeshPlan);
      if (first && plans.every(refusalOf)) throw first;
    };
    unlessAllRefused();
    const regions = new Map<Tissue, TissueRegion>();
    // Classes whose voxels must show what they are (teeth on bone, skin that is not bone, an airway
    // of an airway's size) are segmented and checked before the first mesh is made, so a refusal
    // comes before minutes of work on the others; they are kept for their meshes.
    progress(0.38, 'checking what the scan shows');
    for (const plan of plans)
      for (const t of plan.tissues)
        if (t !== 'bone' && !refusalOf(plan))
          await segmentRegion(t, plan.label, { volume, thresholds, regions, pool }).catch((e: unknown) => {
            if (!(e instanceof AppError) || e.code !== 'bad-input') throw e;
            refusals.set(t, e);
          });
    unlessAllRefused();
    lap('checks');
    for (const [m, plan] of plans.entries()) {
      checkAbort();
      const refused = refusalOf(plan);
      if (refused) {
        results.push({ refused: [refused.message, refused.action].filter(Boolean).join(' ') });
        log.info('mesh refused', { mesh: m + 1 });
        continue;
      }
      // Keep only the regions this or a later mesh needs: each costs a byte per voxel.
      const later = new Set(plans.slice(m).flatMap((p) => p.tissues));
      for (const t of regions.keys()) if (!later.has(t)) regions.delete(t);
      // Within this mesh's share of the job, whatever a step reports.
      const at = (f: number): ((stage: string) => void) => {
        return (stage) => progress(0.4 + (0.6 * (m + Math.min(1, Math.max(0, f)))) / plans.length, stage);
      };
      const made = await produceMesh(
        plan,
        { volume, thresholds, regions, pool, signal: ctx.signal, at },
        job.workDir,
      );
      log.info('mesh written', { mesh: m + 1, ...made.log });
      results.push(made.result);
    }
  } finally {
    await pool.close();
  }
  progress(1, 'done');
  return { meshes: results };
}

/** One requested mesh: segment its tissues, extract, smooth, simplify, write, and say what was done. */
async function produceMesh(
  plan: MeshPlan,
  c: MeshContext,
  /** Where the mesh file is written. */
  workDir: string,
): Promise<{ result: ProcessedMesh; log: Record<string, unknown> }> {
  const { regions } = c;
  const { label, settings } = plan;
  const { simple, extracted, ms } = await surfaceOf(plan, c);
  const t0 = performance.now();
  const name = plan.request.structures.join('+').replace(/[^a-z0-9_+-]/gi, '_');
  const path = join(workDir, `mesh-${plan.index + 1}-${name}${plan.format}`);
  c.at(MESH_STEPS.write)(`writing ${label}${plan.format}`);
  const written = await writeMesh(simple, path, plan.format);
  ms.write = Math.round(performance.now() - t0);
  const triangles = written.triangles;
  // Counted on what was written (after smoothing and simplification), so the note matches the file.
  const pieces = countSurfaces(simple);
  const what = plan.request.structures.map(structureNote).join('; ');
  const [sx, sy, sz] = c.volume.spacing;
  const how = plan.tissues
    .map((t) => regionNote(regions.get(t) as TissueRegion, c.thresholds, sx * sy * sz))
    .join('; ');
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

/** How a tissue was found. Its voxel pieces are not counted here: the note counts the file's surfaces. */
function regionNote(r: TissueRegion, t: Thresholds, voxelMm3: number): string {
  const side = r.polarity === 'above' ? 'above' : 'below';
  const s = t.scale;
  let source = "from the scan's histogram";
  if (r.tissue === 'teeth' && s) {
    const where = r.band && r.place ? dentitionNote(r.band, r.place) : '';
    source = s.hounsfield
      ? `Hounsfield units: enamel and dentine, above compact bone${where}`
      : `${DENTITION_MIN_HU} HU scaled by the scan's air (${formatValue(s.air)}) and soft-tissue (${formatValue(s.soft)}) grey values, taken for -1000 and +${SOFT_TISSUE_PEAK_HU} HU (an estimate: a soft-tissue peak 20 HU away moves the surface about 1 mm)${unitNote(t)}${where}`;
  }
  const small = r.components.components - r.components.kept - (r.place?.loose ?? 0) - (r.place?.compact ?? 0);
  // A piece of a cubic centimetre or more is no speck: how large, so that a reader can tell (a review
  // found a mandible of 20 cm³ among "1 small loose piece left out").
  const droppedCm3 = (r.components.largestDropped * voxelMm3) / 1000;
  const largest = droppedCm3 >= 1 ? ` (the largest ${droppedCm3.toFixed(1)} cm³)` : '';
  const dropped =
    small > 0
      ? `, ${small} ${largest ? '' : 'small '}loose piece${small === 1 ? '' : 's'} left out${largest}`
      : '';
  // Padding the files do not declare, found from where it lies: said, as it shapes the skin and airway.
  const round =
    t.roundField && !isPlainAbove(r.tissue)
      ? `; ${formatValue(t.roundField.value)} outside a round field of view ${Math.round(2 * t.roundField.radiusMm)} mm across taken as padding (the files declare none), its edge as a cut face`
      : '';
  return `${r.tissue}: grey value ${side} ${formatValue(r.iso)} (${source})${dropped}${round}`;
}

/** Where the teeth were found to lie and what they hold, as checked (dentition.ts, dentition-place.ts). */
function dentitionNote(band: BandProfile, place: DentitionPlace): string {
  const parts: string[] = [];
  if (band.scanHeight > DENTITION_BAND_MM)
    parts.push(
      `${Math.floor(band.inBand * 1000) / 10} % of it within one ${DENTITION_BAND_MM} mm band, as teeth are`,
    );
  parts.push(
    place.loose === 0
      ? 'every piece joined to bone'
      : `every piece kept joined to bone (${place.loose} dense piece${place.loose === 1 ? '' : 's'} lying free of bone left out: metal or a foreign body, not teeth)`,
  );
  if (place.compact > 0)
    parts.push(
      `${place.compact} piece${place.compact === 1 ? '' : 's'} of bone as dense as the dentition level, without enamel (nothing above ${COMPACT_BONE_MAX_HU} HU, denser than any compact bone) and away from the teeth and their height, left out: not teeth`,
    );
  parts.push(
    place.heightInBone === null
      ? `the bone spans ${Math.round(place.boneSpan)} mm, too little to tell the skull from the jaws, so its height in the head was not checked`
      : `its centre ${Math.round(place.heightInBone * 100)} % of the way up the bone's ${Math.round(place.boneSpan)} mm, in the jaws`,
  );
  if (place.metalShare >= 0.01)
    parts.push(
      `${Math.round(place.metalShare * 100)} % of it at ${METAL_MIN_HU} HU or above: metal (fillings, crowns) or the scanner's ceiling, kept as part of the dentition`,
    );
  return `; ${parts.join('; ')}`;
}

/** Why a CT's values were not taken as Hounsfield units, when its files said so. */
function unitNote(t: Thresholds): string {
  return t.rescaleType
    ? `, not as Hounsfield units: the scan's Rescale Type is ${t.rescaleType}, not HU`
    : '';
}

const formatValue = (v: number): string => (Number.isInteger(v * 2) ? String(v) : v.toFixed(1));
