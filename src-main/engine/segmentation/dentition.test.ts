import { describe, expect, it, beforeAll } from 'vitest';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readVolume } from '../../scans/volume-reader.js';
import type { Volume } from '../../scans/volume.js';
import { bandProfile, DENTITION_BAND_MM, DENTITION_MIN_HU } from './dentition.js';
import { deriveThresholds, segmentTissue } from './tissue.js';

/** A real human head CT in Hounsfield units, with the upper teeth in its lowest ~10 mm (MANIFEST.md). */
const SERIES = resolve('../shared/fixtures/dicom/ct-human-cranium-teeth');
let vol: Volume;

beforeAll(async () => {
  vol = await readVolume((await readdir(SERIES)).sort().map((f) => join(SERIES, f)));
});

describe('the dentition level on a real head CT', () => {
  it('takes calibrated CT as Hounsfield units once air and soft tissue sit where they must', () => {
    const t = deriveThresholds(vol.data, vol.modality);
    expect(vol.modality).toBe('CT');
    expect(t.scale?.hounsfield).toBe(true);
    expect(Math.abs(t.scale!.air + 1000)).toBeLessThan(50);
    expect(Math.abs(t.scale!.soft)).toBeLessThan(60);
    expect(t.teeth).toBe(DENTITION_MIN_HU);
    const teeth = segmentTissue(vol, 'teeth', t);
    expect(teeth.components.kept).toBeGreaterThan(0);
    // The upper teeth: all of the class within the lowest 20 mm of the scan.
    expect(teeth.band).toMatchObject({ inBand: 1 });
    expect(teeth.band!.height).toBeLessThanOrEqual(20);
  });

  it('without the CT modality, scales the same level from the air and soft-tissue peaks', () => {
    // The same real scan on another grey-value scale (as an uncalibrated CBCT device might write it).
    const gain = 0.8;
    const offset = 1500;
    const data = new Float32Array(vol.data.length);
    for (let i = 0; i < data.length; i++) data[i] = gain * (vol.data[i] as number) + offset;
    const t = deriveThresholds(data);
    expect(t.scale?.hounsfield).toBe(false);
    const asHu = ((t.teeth as number) - offset) / gain;
    // The soft-tissue peak stands in for +30 HU: the level moves by how far this head's lies from
    // that, 20 HU or so, about a millimetre.
    expect(Math.abs(asHu - DENTITION_MIN_HU)).toBeLessThan(25);
    const teeth = segmentTissue({ ...vol, data }, 'teeth', t);
    expect(bandProfile(teeth.mask, vol)).toMatchObject({ inBand: 1 });
    expect(bandProfile(teeth.mask, vol).height).toBeLessThanOrEqual(20);
  });

  it('refuses a dentition class spread over the skull, as the old histogram split (972 HU) gave', () => {
    const t = deriveThresholds(vol.data, vol.modality);
    const spread = new RegExp(
      `only \\d+ % of it lies in one ${DENTITION_BAND_MM} mm band, the rest spreads over \\d+ mm`,
    );
    expect(() => segmentTissue(vol, 'teeth', { ...t, teeth: 972 })).toThrow(spread);
    // 70 HU below the chosen level, pieces of the cranial vault enter the class: refused too.
    expect(() => segmentTissue(vol, 'teeth', { ...t, teeth: 1700.5 })).toThrow(spread);
    expect(segmentTissue(vol, 'teeth', { ...t, teeth: 1750.5 }).band!.inBand).toBeGreaterThan(0.98);
  });
});
