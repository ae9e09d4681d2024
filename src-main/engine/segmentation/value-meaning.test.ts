// What a scan's values mean decides what its thresholds find: the unit its files state (Rescale
// Type), the padding outside its field of view, and which way round its values run. Variants of the
// real head CT built in memory, as the audit built them as files.
import { beforeAll, describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readVolume } from '../../scans/volume-reader.js';
import type { Volume } from '../../scans/volume.js';
import { DENTITION_MIN_HU } from './dentition.js';
import { deriveThresholds, segmentTissue, type Thresholds } from './tissue.js';

/** A real human head CT in Hounsfield units, with the upper teeth in its lowest ~10 mm (MANIFEST.md). */
const CRANIUM = resolve('../shared/fixtures/dicom/ct-human-cranium-teeth');
let head: Volume;

beforeAll(async () => {
  head = await readVolume((await readdir(CRANIUM)).sort().map((f) => join(CRANIUM, f)));
}, 120_000);

/** The real scan with each voxel's value changed by `f(value, i, j, k)`, and other facts. */
function edit(
  v: Volume,
  f: (value: number, i: number, j: number, k: number) => number,
  facts: Partial<Volume> = {},
): Volume {
  const [nx, ny, nz] = v.dims;
  const data = new Int16Array(v.data.length);
  for (let k = 0, p = 0; k < nz; k++)
    for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++, p++) data[p] = f(v.data[p] as number, i, j, k);
  return { ...v, ...facts, data };
}

const thresholds = (v: Volume): Thresholds => deriveThresholds(v.data, v.modality, undefined, v);

describe('Rescale Type: a CT in another unit is not taken for Hounsfield units', () => {
  it('scales the dentition level from air and soft tissue when the values are 0.92 x HU, Rescale Type US', () => {
    // As a CBCT device writes uncalibrated grey values: air near -940, soft tissue near 0.
    const grey = edit(head, (v) => Math.round(0.92 * v), { rescaleType: 'US' });
    const t = thresholds(grey);
    expect(t.scale?.hounsfield).toBe(false);
    expect(t.rescaleType).toBe('US');
    // The level moves with the values: 1770.5 HU is 1629 of these grey values (the soft-tissue peak
    // standing in for 0 HU lifts it by a few tens), not 1770.5.
    expect(t.teeth).toBeGreaterThan(0.92 * DENTITION_MIN_HU - 20);
    expect(t.teeth).toBeLessThan(DENTITION_MIN_HU - 50);
    expect(t.absent).toEqual({});
    const teeth = segmentTissue(grey, 'teeth', t);
    expect(teeth.band).toMatchObject({ inBand: 1 });
    // Stated as Hounsfield units (or not stated), the same values are taken as such.
    for (const rescaleType of ['HU', undefined]) {
      const said = thresholds({ ...grey, ...(rescaleType ? { rescaleType } : { rescaleType: undefined }) });
      expect(said.scale?.hounsfield, rescaleType).toBe(true);
      expect(said.rescaleType).toBeUndefined();
      expect(said.teeth).toBe(DENTITION_MIN_HU);
    }
  });
});
