import { AppError } from '../../src-shared/errors.js';
import { HARD_MAX_TRIANGLES, MAX_FILE_BYTES, fileSizeOverLimit } from '../../src-shared/mesh-viewable.js';
import type { HeaderFacts } from './mesh-format.js';

// Shared with the download check, which notes a saved mesh this viewer will not read on any computer.
export { HARD_MAX_TRIANGLES, MAX_FILE_BYTES };
/**
 * Peak bytes per triangle while one loads: the file (50 B for binary STL), three's soup of
 * positions and normals (72 B), the weld's table and remap (~16 B) and the result (~24 B).
 */
export const PEAK_BYTES_PER_TRIANGLE = 160;
/**
 * Peak bytes per vertex of an indexed mesh (PLY, OBJ) while it loads: its float32 position (12 B),
 * the weld's remap (4 B), hash table (up to 16 B) and welded copy (up to 24 B), its normal (12 B),
 * and its bytes in the file.
 */
const PEAK_BYTES_PER_VERTEX = 72;
/** What a shown triangle keeps: welded arrays in JS (~24 B) plus their copy on the GPU. */
const RESIDENT_BYTES_PER_TRIANGLE = 64;
/** navigator.deviceMemory rounds down and caps at 8; when absent assume a modest machine. */
const DEFAULT_DEVICE_GIB = 4;

export interface MeshBudget {
  maxTriangles: number;
  maxFileBytes: number;
}

/**
 * How many more triangles this machine can take: a third of its memory for the viewer, less
 * what the meshes already shown hold.
 */
export function meshBudget(deviceMemoryGiB: number | undefined, loadedTriangles: number): MeshBudget {
  const gib = deviceMemoryGiB && deviceMemoryGiB > 0 ? deviceMemoryGiB : DEFAULT_DEVICE_GIB;
  const bytes = (gib * 2 ** 30) / 3 - loadedTriangles * RESIDENT_BYTES_PER_TRIANGLE;
  const maxTriangles = Math.max(
    0,
    Math.min(HARD_MAX_TRIANGLES - loadedTriangles, Math.floor(bytes / PEAK_BYTES_PER_TRIANGLE)),
  );
  return { maxTriangles, maxFileBytes: MAX_FILE_BYTES };
}

const fmt = (n: number): string => n.toLocaleString('en-US');

function refuse(name: string, what: string): AppError {
  return new AppError('bad-input', `${name} is too large for this computer: ${what}.`, {
    action: 'Hide or remove other meshes, or ask for a decimated mesh (the service can reduce triangles).',
  });
}

export function checkFileSize(name: string, bytes: number, budget: MeshBudget): void {
  const over = fileSizeOverLimit(bytes, budget.maxFileBytes);
  if (over !== undefined) throw refuse(name, over);
}

/**
 * The triangles whose memory the mesh takes. PEAK_BYTES_PER_TRIANGLE, measured on triangle soups,
 * also covers an indexed mesh of up to one vertex per triangle (a closed surface has half that);
 * vertices beyond that cost on their own (a PLY of 150 million vertices and one face took 2.8 GB,
 * and was counted as one triangle).
 */
function triangleEquivalent(facts: HeaderFacts): number {
  const extra = Math.max(0, (facts.vertices ?? 0) - facts.triangles);
  return facts.triangles + Math.ceil((extra * PEAK_BYTES_PER_VERTEX) / PEAK_BYTES_PER_TRIANGLE);
}

/** Refuses, before parsing, a mesh whose triangles would not fit; estimates count as facts here. */
export function checkTriangleBudget(name: string, facts: HeaderFacts, budget: MeshBudget): void {
  const cost = triangleEquivalent(facts);
  if (cost <= budget.maxTriangles) return;
  const triangles = `${facts.exact ? '' : 'about '}${fmt(facts.triangles)} triangle${facts.triangles === 1 ? '' : 's'}`;
  const fit = `${fmt(budget.maxTriangles)} more fit in the memory the viewer may use`;
  if (cost === facts.triangles) throw refuse(name, `${triangles}, and ${fit}`);
  throw refuse(
    name,
    `${fmt(facts.vertices ?? 0)} vertices and ${triangles} take the memory of ${fmt(cost)} triangles, and ${fit}`,
  );
}
