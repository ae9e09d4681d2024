import { AppError } from '../../src-shared/errors.js';
import type { HeaderFacts } from './mesh-format.js';

/** Beyond this the scene is unusable on any clinical workstation, whatever its memory. */
export const HARD_MAX_TRIANGLES = 30_000_000;
/**
 * Peak bytes per triangle while one loads: the file (50 B for binary STL), three's soup of
 * positions and normals (72 B), the weld's table and remap (~16 B) and the result (~24 B).
 */
export const PEAK_BYTES_PER_TRIANGLE = 160;
/** What a shown triangle keeps: welded arrays in JS (~24 B) plus their copy on the GPU. */
const RESIDENT_BYTES_PER_TRIANGLE = 64;
/** ArrayBuffers this large fail to allocate in a renderer process well before memory runs out. */
export const MAX_FILE_BYTES = 1.5 * 2 ** 30;
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
  if (bytes > budget.maxFileBytes) {
    throw refuse(
      name,
      `${fmt(Math.round(bytes / 2 ** 20))} MB, more than ${fmt(budget.maxFileBytes / 2 ** 20)} MB can be read`,
    );
  }
}

/** Refuses, before parsing, a mesh whose triangles would not fit; estimates count as facts here. */
export function checkTriangleBudget(name: string, facts: HeaderFacts, budget: MeshBudget): void {
  if (facts.triangles > budget.maxTriangles) {
    const about = facts.exact ? '' : 'about ';
    throw refuse(
      name,
      `${about}${fmt(facts.triangles)} triangles, and ${fmt(budget.maxTriangles)} more fit in the memory the viewer may use`,
    );
  }
}
