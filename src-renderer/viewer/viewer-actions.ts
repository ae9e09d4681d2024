import { AppError, isAppError } from '../../src-shared/errors.js';
import { degenerateWarning } from '../../src-shared/mesh-viewable.js';
import { formatCount, formatMm, loadedStatus } from './format-units.js';
import { checkFileSize, meshBudget } from './mesh-budget.js';
import { requireFormat } from './mesh-format.js';
import type { MeshFormat } from './mesh-format.js';
import { loadMeshInWorker } from './mesh-loader.js';
import type { MeshLoad } from './mesh-loader.js';
import { meshRegistry } from './mesh-registry.js';
import { colourForStructures, nextFallbackColour, structureHintsFromFileName } from './palette.js';
import { useViewerStore } from './viewer-store.js';

/** A mesh the shell hands to the viewer, typically one output file of a finished job. */
export interface ViewerMeshSource {
  id: string;
  name: string;
  structures: string[];
  format: MeshFormat;
  load: () => Promise<ArrayBuffer>;
}

/** Performance marks the viewer leaves, so benchmarks and tests can time a load from outside. */
export const MARKS = {
  loadStart: (id: string) => `viewer:load-start:${id}`,
  loaded: (id: string) => `viewer:loaded:${id}`,
  drawn: (id: string) => `viewer:drawn:${id}`,
};

/** Each load keeps a core busy for seconds; more at once than the machine has cores only adds waiting. */
// `typeof`: this module is also loaded by unit tests outside a browser (Node 20 has no navigator).
const MAX_PARALLEL = Math.max(
  1,
  Math.min(2, (typeof navigator === 'undefined' ? 1 : navigator.hardwareConcurrency) || 1),
);

/** Loads under way; `load` is null while queued or downloading (before a worker exists). */
const running = new Map<string, { origin: 'job' | 'file'; load: MeshLoad | null }>();
const waiting: (() => void)[] = [];
let inFlight = 0;
let fileCounter = 0;

/** Waits for a free load slot; the returned function hands it to the next waiter, or frees it. */
async function slot(): Promise<() => void> {
  if (inFlight < MAX_PARALLEL) inFlight++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  return () => {
    const next = waiting.shift();
    if (next) next();
    else inFlight--;
  };
}

interface LoadJob {
  id: string;
  name: string;
  format: MeshFormat;
  structures: string[];
  origin: 'job' | 'file';
  source: () => Promise<Blob | ArrayBuffer>;
}

function pickColour(structures: string[], name: string): string {
  return (
    colourForStructures(structures) ??
    colourForStructures(structureHintsFromFileName(name)) ??
    nextFallbackColour(useViewerStore.getState().items.map((i) => i.colour))
  );
}

function deviceMemory(): number | undefined {
  return (navigator as Navigator & { deviceMemory?: number }).deviceMemory;
}

function report(name: string, e: unknown): void {
  const store = useViewerStore.getState();
  if (isAppError(e) && e.code === 'canceled') {
    store.setStatus(e.message);
    return;
  }
  const message = e instanceof Error ? e.message : `${name} could not be opened: ${String(e)}`;
  const action = isAppError(e) ? e.action : undefined;
  store.addNotice(action ? { message, action } : { message });
  store.setStatus(message.includes(name) ? message : `Could not open ${name}: ${message}`);
}

async function runLoad(job: LoadJob): Promise<void> {
  const store = useViewerStore.getState();
  running.set(job.id, { origin: job.origin, load: null });
  store.setLoad({ id: job.id, name: job.name, stage: 'queued', overall: 0 });
  const release = await slot();
  try {
    if (!running.has(job.id)) throw new AppError('canceled', `Loading ${job.name} was cancelled.`);
    performance.mark(MARKS.loadStart(job.id));
    store.setStatus(`Loading ${job.name}…`);
    if (job.origin === 'job') store.setLoad({ id: job.id, name: job.name, stage: 'download', overall: null });
    const source = await job.source();
    if (!running.has(job.id)) throw new AppError('canceled', `Loading ${job.name} was cancelled.`);
    const loadedTriangles = useViewerStore.getState().items.reduce((n, i) => n + i.triangles, 0);
    const budget = meshBudget(deviceMemory(), loadedTriangles);
    checkFileSize(job.name, source instanceof Blob ? source.size : source.byteLength, budget);
    const load = loadMeshInWorker(job.name, job.format, source, budget, (p) =>
      useViewerStore.getState().setLoad({ id: job.id, name: job.name, stage: p.stage, overall: p.overall }),
    );
    running.set(job.id, { origin: job.origin, load });
    const mesh = await load.promise;
    performance.mark(MARKS.loaded(job.id));
    meshRegistry.set(job.id, mesh);
    const s = useViewerStore.getState();
    s.addItem({
      id: job.id,
      name: job.name,
      structures: job.structures,
      format: job.format,
      origin: job.origin,
      colour: pickColour(job.structures, job.name),
      visible: true,
      opacity: 1,
      triangles: mesh.triangles,
      degenerate: mesh.degenerate,
      bounds: mesh.bounds,
      timings: mesh.timings,
    });
    s.setStatus(loadedStatus(job.name, mesh.triangles, mesh.bounds));
    if (mesh.outliers) {
      const { count, farthest } = mesh.outliers;
      s.addNotice({
        message: `${job.name}: ${formatCount(count)} ${count === 1 ? 'vertex lies' : 'vertices lie'} far outside the rest of the mesh (up to ${formatMm(farthest)} mm away); the view and the size shown leave ${count === 1 ? 'it' : 'them'} out.`,
      });
    }
    // The download check notes the same of a saved mesh, by the same rule.
    const degenerate = degenerateWarning(mesh.degenerate, mesh.triangles, formatCount);
    if (degenerate) s.addNotice({ message: `${job.name}: ${degenerate}.` });
  } catch (e) {
    report(job.name, e);
  } finally {
    running.delete(job.id);
    useViewerStore.getState().endLoad(job.id);
    release();
  }
}

/** Opens mesh files the user chose or dropped; each loads in its own worker. */
export function openMeshFiles(files: readonly File[]): void {
  for (const file of files) {
    let format: MeshFormat;
    try {
      format = requireFormat(file.name);
    } catch (e) {
      report(file.name, e);
      continue;
    }
    const structures = structureHintsFromFileName(file.name).filter((w) => colourForStructures([w]) !== null);
    void runLoad({
      id: `file-${++fileCounter}`,
      name: file.name,
      format,
      structures,
      origin: 'file',
      source: () => Promise.resolve(file),
    });
  }
}

/**
 * Shows exactly the given job outputs (plus whatever files the user opened): new ones load,
 * ones no longer given leave the scene. They share one coordinate system, as the service wrote them.
 */
export function syncJobMeshes(sources: readonly ViewerMeshSource[]): void {
  const wanted = new Set(sources.map((s) => s.id));
  const leaving = useViewerStore.getState().items.filter((i) => i.origin === 'job' && !wanted.has(i.id));
  for (const item of leaving) removeMesh(item.id);
  // Another job's meshes: measurements and a clipping plane placed on the one before belong to that
  // patient, not this one (a review saw one patient's ruler drawn across another's face).
  if (leaving.length > 0) {
    const store = useViewerStore.getState();
    store.clearMeasurements();
    store.setClip({ position: null });
  }
  for (const [id, { origin }] of [...running]) {
    if (origin === 'job' && !wanted.has(id)) cancelLoad(id);
  }
  const present = new Set(useViewerStore.getState().items.map((i) => i.id));
  for (const s of sources) {
    const id = s.id;
    if (present.has(id) || running.has(id)) continue;
    void runLoad({
      id,
      name: s.name,
      format: s.format,
      structures: s.structures,
      origin: 'job',
      source: () => s.load(),
    });
  }
}

export function cancelLoad(id: string): void {
  const entry = running.get(id);
  running.delete(id);
  entry?.load?.cancel();
  if (entry && entry.load === null) {
    // Still queued or downloading: runLoad notices the missing entry and stops.
    useViewerStore.getState().endLoad(id);
  }
}

export function removeMesh(id: string): void {
  meshRegistry.delete(id);
  useViewerStore.getState().removeItem(id);
}
