import { extname } from 'node:path';
import { AppError } from '../../../src-shared/errors.js';
import type { Volume } from '../../scans/volume.js';
import { extractIsoSurface, type IsoSurfaceOptions } from './iso-surface.js';
import { isMeshFormat, type MeshFormat } from './mesh-formats.js';
import { writeMesh, type WrittenMesh } from './mesh-writers.js';
import { simplifyMesh } from './simplify.js';

interface IsoSurfaceFileOptions extends Omit<IsoSurfaceOptions, 'mask'> {
  /** Default: from the extension of outPath. */
  format?: MeshFormat;
  /** Simplify within this many mm first; default 0 (write the full marching-cubes surface). */
  decimateMaxError?: number;
}

/**
 * The raw iso-surface of a volume written to a mesh file, e.g. a big STL for a viewer benchmark:
 * no component filtering and no smoothing, only the surface at `iso` in patient coordinates.
 */
export async function isoSurfaceToFile(
  volume: Volume,
  iso: number,
  outPath: string,
  opts: IsoSurfaceFileOptions = {},
): Promise<WrittenMesh> {
  const format = opts.format ?? extname(outPath).toLowerCase();
  if (!isMeshFormat(format))
    throw new AppError('bad-request', `Cannot write "${format}": use .stl, .ply, .obj or .drc.`);
  const mesh = await extractIsoSurface(volume, iso, opts);
  const out = opts.decimateMaxError ? await simplifyMesh(mesh, opts.decimateMaxError) : mesh;
  return writeMesh(out, outPath, format);
}
