/**
 * The mesh formats the viewer opens, by file name: light enough for the main thread. Each
 * format's sniffing, parsing and limits live in its own module under formats/, used by the
 * loader's worker through mesh-parse.ts.
 */
import { AppError } from '../../src-shared/errors.js';

export type MeshFormat = 'stl' | 'ply' | 'obj' | 'drc';

const MESH_FORMATS: readonly MeshFormat[] = ['stl', 'ply', 'obj', 'drc'];
export const MESH_FILE_ACCEPT = '.stl,.ply,.obj,.drc';

const OPENABLE = 'Open an STL, PLY, OBJ or Draco (.drc) mesh.';

/** The format a file name announces, or null when it is not a mesh this viewer opens. */
export function formatFromFileName(name: string): MeshFormat | null {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return MESH_FORMATS.find((f) => f === ext) ?? null;
}

export function requireFormat(name: string): MeshFormat {
  const f = formatFromFileName(name);
  if (f === null) {
    throw new AppError('bad-input', `${name} is not a mesh file this viewer can open.`, { action: OPENABLE });
  }
  return f;
}

/** How many bytes of a file the header checks need. */
export const HEADER_BYTES = 64 * 1024;

export interface HeaderFacts {
  /**
   * Triangles the file holds: exact where the header says so (binary STL, PLY), otherwise an
   * estimate from the byte size that errs high, since it only guards the memory budget.
   */
  triangles: number;
  /** Vertices of an indexed mesh, where the file says how many (PLY, OBJ); 0 when unknown. */
  vertices?: number;
  exact: boolean;
}
