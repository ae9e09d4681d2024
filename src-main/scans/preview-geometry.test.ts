// The patient placement a preview carries (geometry, grid), checked against pydicom's positions and
// against the preview's own pixels, on the real cranium CT.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SlicePlane, SlicePreview } from '../../src-shared/scans.js';
import { renderPlane } from './preview.js';
import { FIXTURES, pydicomMissing, python } from './scans.test-support.js';
import { readVolume } from './volume-reader.js';
import type { Volume } from './volume.js';

const CRANIUM = join(FIXTURES, 'ct-human-cranium-teeth');
const files = readdirSync(CRANIUM)
  .filter((f) => f.endsWith('.dcm'))
  .map((f) => join(CRANIUM, f));
const noPydicom = pydicomMissing();
const WL = { window: 2000, level: 400 };

let volume: Volume;
beforeAll(async () => {
  volume = await readVolume(files);
}, 120_000);

type Vec3 = [number, number, number];
const at = (g: SlicePreview['geometry'], u: number, v: number): Vec3 =>
  [0, 1, 2].map((a) => g.origin[a]! + u * g.column[a]! + v * g.row[a]!) as Vec3;

/** Voxel indices of a patient point, by solving the grid's 3x3 system (Cramer's rule). */
function voxelOf(grid: SlicePreview['grid'], p: Vec3): Vec3 {
  const [a, b, c] = grid.steps;
  const d = [p[0] - grid.origin[0], p[1] - grid.origin[1], p[2] - grid.origin[2]] as Vec3;
  const det = (x: Vec3, y: Vec3, z: Vec3): number =>
    x[0] * (y[1] * z[2] - y[2] * z[1]) -
    y[0] * (x[1] * z[2] - x[2] * z[1]) +
    z[0] * (x[1] * y[2] - x[2] * y[1]);
  const D = det(a, b, c);
  return [det(d, b, c) / D, det(a, d, c) / D, det(a, b, d) / D];
}

describe('preview placement', () => {
  it.skipIf(noPydicom !== null)(
    `puts axial slice k where pydicom says that file lies${noPydicom ? ` (skipped: ${noPydicom})` : ''}`,
    () => {
      const ref = python<{ z: number; ipp: Vec3; iop: number[] }[]>(
        `import sys, json, pydicom
out = []
for f in sys.argv[1:]:
    d = pydicom.dcmread(f, stop_before_pixels=True)
    out.append({"ipp": [float(x) for x in d.ImagePositionPatient], "iop": [float(x) for x in d.ImageOrientationPatient]})
print(json.dumps(out))`,
        files,
      );
      const p0 = renderPlane(volume, 's', 'axial', 0, WL);
      for (const k of [0, 40, p0.count - 1]) {
        const p = renderPlane(volume, 's', 'axial', k, WL);
        // The file whose position is nearest: the slice the grid puts at k.
        const best = ref
          .map((r) => Math.hypot(...r.ipp.map((x, a) => x - p.geometry.origin[a]!)))
          .reduce((m, x) => Math.min(m, x), Infinity);
        expect(best).toBeLessThan(0.01);
      }
      // Columns run along the first orientation cosine, rows along the second.
      const iop = ref[0]!.iop;
      const colLen = Math.hypot(...p0.geometry.column);
      const rowLen = Math.hypot(...p0.geometry.row);
      for (let a = 0; a < 3; a++) {
        expect(p0.geometry.column[a]! / colLen).toBeCloseTo(iop[a]!, 5);
        expect(p0.geometry.row[a]! / rowLen).toBeCloseTo(iop[a + 3]!, 5);
      }
    },
  );

  it.skipIf(noPydicom !== null)('reports the whole scan’s value range, as pydicom reads it', () => {
    const [lo, hi] = python<[number, number]>(
      `import sys, json, pydicom
lo, hi = None, None
for f in sys.argv[1:]:
    d = pydicom.dcmread(f)
    a = d.pixel_array * float(getattr(d, "RescaleSlope", 1)) + float(getattr(d, "RescaleIntercept", 0))
    lo = a.min() if lo is None else min(lo, a.min())
    hi = a.max() if hi is None else max(hi, a.max())
print(json.dumps([float(lo), float(hi)]))`,
      files,
    );
    expect(renderPlane(volume, 's', 'coronal', 10, WL).valueRange).toEqual([lo, hi]);
  });

  it('maps every plane’s pixels to the voxels they show', () => {
    const grey = (p: SlicePreview): Buffer => Buffer.from(p.pixels, 'base64');
    const axial = new Map<number, Buffer>();
    const axialAt = (k: number): Buffer => {
      let g = axial.get(k);
      if (!g) axial.set(k, (g = grey(renderPlane(volume, 's', 'axial', k, WL))));
      return g;
    };
    const [nx] = volume.dims;
    const planes: [SlicePlane, number][] = [
      ['sagittal', 128],
      ['coronal', 150],
      ['axial', 60],
    ];
    for (const [plane, index] of planes) {
      const p = renderPlane(volume, 's', plane, index, WL);
      const pixels = grey(p);
      let checked = 0;
      for (let v = 0; v < p.height; v += 7) {
        for (let u = 0; u < p.width; u += 13) {
          const [i, j, k] = voxelOf(p.grid, at(p.geometry, u, v));
          // Each pixel sits exactly on a voxel centre.
          expect(
            Math.abs(i - Math.round(i)) + Math.abs(j - Math.round(j)) + Math.abs(k - Math.round(k)),
          ).toBeLessThan(1e-3);
          expect(pixels[v * p.width + u]).toBe(axialAt(Math.round(k))[Math.round(j) * nx + Math.round(i)]);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(250);
      // The plane's own index is the matching voxel coordinate: sagittal i, coronal j, axial k.
      const [i, j, k] = voxelOf(p.grid, p.geometry.origin);
      expect(Math.round(plane === 'sagittal' ? i : plane === 'coronal' ? j : k)).toBe(index);
    }
  });
});
