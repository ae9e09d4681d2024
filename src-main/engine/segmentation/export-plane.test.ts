// The same voxels exported in another plane give the same skin and airway: the enclosed air is
// filled in the patient's axial planes, not in the planes the scan happens to be stored in.
import { beforeAll, describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readVolume } from '../../scans/volume-reader.js';
import type { Volume } from '../../scans/volume.js';
import { headFootAxis } from './head-foot.js';
import { deriveThresholds, segmentTissue } from './tissue.js';

/** A real human head CT in Hounsfield units, stored as axial slices (MANIFEST.md). */
const CRANIUM = resolve('../shared/fixtures/dicom/ct-human-cranium-teeth');
let head: Volume;

beforeAll(async () => {
  head = await readVolume((await readdir(CRANIUM)).sort().map((f) => join(CRANIUM, f)));
}, 120_000);

/**
 * The real scan stored as another export would store it, as the audit's variants do: rows running
 * from head to foot, and the slices along x (sagittal) or y (coronal). The same voxels, in LPS.
 */
function reexport(v: Volume, plane: 'sagittal' | 'coronal'): Volume {
  const [nx, ny, nz] = v.dims;
  const data = new Int16Array(v.data.length);
  const at = (x: number, y: number, z: number): number => v.data[x + nx * (y + ny * z)] as number;
  let o = 0;
  if (plane === 'sagittal') {
    for (let x = 0; x < nx; x++)
      for (let r = 0; r < nz; r++) for (let y = 0; y < ny; y++) data[o++] = at(x, y, nz - 1 - r);
  } else {
    for (let y = 0; y < ny; y++)
      for (let r = 0; r < nz; r++) for (let x = 0; x < nx; x++) data[o++] = at(x, y, nz - 1 - r);
  }
  const [sx, sy, sz] = v.spacing;
  const origin: [number, number, number] = [v.origin[0], v.origin[1], v.origin[2] + (nz - 1) * sz];
  return plane === 'sagittal'
    ? {
        ...v,
        data,
        origin,
        dims: [ny, nz, nx],
        spacing: [sy, sz, sx],
        rowDir: [0, 1, 0],
        colDir: [0, 0, -1],
        sliceDir: [1, 0, 0],
      }
    : {
        ...v,
        data,
        origin,
        dims: [nx, nz, ny],
        spacing: [sx, sz, sy],
        rowDir: [1, 0, 0],
        colDir: [0, 0, -1],
        sliceDir: [0, 1, 0],
      };
}

describe('soft_tissue and airway do not depend on the plane the scan was exported in', () => {
  it('finds the head-foot axis among the voxel axes', () => {
    expect(headFootAxis(head)).toBe(2);
    expect(headFootAxis(reexport(head, 'sagittal'))).toBe(1);
    expect(headFootAxis({ rowDir: [0, 0.1, -0.99], colDir: [1, 0, 0], sliceDir: [0, 1, 0] })).toBe(0);
    expect(headFootAxis({})).toBe(2);
  });

  it('gives the sagittal and coronal exports of the real head the axial export airway and skin, voxel for voxel', () => {
    const t = deriveThresholds(head.data, head.modality);
    const airway = segmentTissue(head, 'airway', t);
    const skin = segmentTissue(head, 'soft-tissue', t);
    for (const plane of ['sagittal', 'coronal'] as const) {
      const v = reexport(head, plane);
      const tv = deriveThresholds(v.data, v.modality);
      // Filled in the export's own planes, the sagittal airway was a third of the axial one.
      expect(segmentTissue(v, 'airway', tv).components, plane).toEqual(airway.components);
      expect(segmentTissue(v, 'soft-tissue', tv).components, plane).toEqual(skin.components);
    }
  });
});
