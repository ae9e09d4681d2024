import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DicomHeader } from './header-fields.js';
import {
  MIN_EXTENT_MM,
  MIN_PIXELS,
  MIN_SLICES,
  fitnessInputOf,
  segmentationFitness,
  type FitnessInput,
} from './segmentation-fitness.js';
import { summarizeSeries } from './series-summary.js';
import { layoutSlices } from './slice-layout.js';
import { FIXTURES, phantomBySlice, phantomFiles } from './scans.test-support.js';
import { readSeriesHeaders } from './volume-reader.js';

async function fitnessOf(
  files: string[],
  edit?: (h: DicomHeader) => void,
): Promise<ReturnType<typeof segmentationFitness>> {
  const headers = await readSeriesHeaders(files);
  if (edit) headers.forEach(edit);
  const { layout, problems } = layoutSlices(headers);
  return segmentationFitness(fitnessInputOf(headers, layout, problems));
}

/** A CT that passes every criterion, to change one thing at a time. */
const goodCt: FitnessInput = {
  modality: 'CT',
  localizer: false,
  columns: 512,
  rows: 512,
  slices: 140,
  pixelSize: [0.451, 0.451],
  stackLengthMm: 139,
  sliceSpacingMm: 1,
  mixedOrientations: false,
  unbridgeableGaps: [],
  offLineMm: 0,
};

describe('segmentationFitness on the real CT fixtures', () => {
  it('finds the 512 x 512 x 140 phantom fit', async () => {
    expect(await fitnessOf(phantomFiles())).toEqual({ fit: true, reasons: [] });
  });

  it('finds the 256 x 256 x 108 human cranium CT fit, and the series summary says so', async () => {
    const dir = join(FIXTURES, 'ct-human-cranium-teeth');
    const files = readdirSync(dir).map((f) => join(dir, f));
    expect(await fitnessOf(files)).toEqual({ fit: true, reasons: [] });
    const { summary } = summarizeSeries(await readSeriesHeaders(files), (p) => p);
    expect(summary.fitness).toEqual({ fit: true, reasons: [] });
  });
});

describe('segmentationFitness refuses what holds no jaw', () => {
  it('a 2-slice series (two files of the phantom), naming the count and the extent', async () => {
    const two = phantomBySlice().slice(50, 52);
    const f = await fitnessOf(two);
    expect(f.fit).toBe(false);
    expect(f.reasons).toContain(
      `The series has only 2 slices; a scan that holds a jaw has at least ${MIN_SLICES}.`,
    );
    expect(f.reasons.join(' ')).toMatch(/covers only 231 x 231 x 1 mm; a jaw needs at least 30 mm/);
  });

  it('the 2-frame Enhanced CT multi-frame file (a perfusion-like slab)', async () => {
    const f = await fitnessOf([join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm')]);
    expect(f.fit).toBe(false);
    expect(f.reasons.join(' ')).toMatch(/only 2 slices/);
  });

  it('a 16 x 16 x 4 volume', () => {
    const f = segmentationFitness({
      ...goodCt,
      columns: 16,
      rows: 16,
      slices: 4,
      pixelSize: [1, 1],
      stackLengthMm: 3,
    });
    expect(f.fit).toBe(false);
    expect(f.reasons).toEqual([
      `The images are only 16 x 16 pixels; a scan that shows a jaw has at least ${MIN_PIXELS} x ${MIN_PIXELS}.`,
      `The series has only 4 slices; a scan that holds a jaw has at least ${MIN_SLICES}.`,
      `The scan covers only 16 x 16 x 3 mm; a jaw needs at least ${MIN_EXTENT_MM} mm in every direction.`,
    ]);
  });

  it('an MR image (the real fixture)', async () => {
    const f = await fitnessOf([join(FIXTURES, 'mr', 'mr-small-64x64.dcm')]);
    expect(f.fit).toBe(false);
    expect(f.reasons[0]).toMatch(/This is an MR \(magnetic resonance\) scan, not a CT or cone-beam CT scan/);
  });

  it('images without a pixel size: no physical scale', async () => {
    const f = await fitnessOf(phantomFiles(), (h) => {
      for (const fr of h.frames) delete fr.pixelSpacing;
    });
    expect(f).toEqual({
      fit: false,
      reasons: [
        'The images do not state their pixel size, so the scan has no physical scale: a model made from it would have no true size.',
      ],
    });
  });

  it('a localizer (scout) image', async () => {
    const f = await fitnessOf(phantomFiles(), (h) => {
      h.imageType = 'ORIGINAL\\PRIMARY\\LOCALIZER';
    });
    expect(f.fit).toBe(false);
    expect(f.reasons).toEqual([
      'This series is a localizer (scout): the overview image taken to plan the scan, not the 3D scan itself.',
    ]);
  });

  it('mixed orientations, and a gap too wide to fill in, named by slice and position', () => {
    const gap = { slice: 3, fromMm: 736.2, toMm: 740.2, sizeMm: 4 };
    const f = segmentationFitness({ ...goodCt, mixedOrientations: true, unbridgeableGaps: [gap] });
    expect(f.reasons).toEqual([
      'The images are not all oriented the same way, so they do not form one volume.',
      'Slices are missing between slice 3 and 4 (736.2 to 740.2 mm), a 4.0 mm gap: too wide a gap to fill in honestly (wider than 3 mm). Export the complete series.',
    ]);
  });

  it('slices with neither positions nor a spacing: no scale along the stack', async () => {
    const f = await fitnessOf(phantomFiles(), (h) => {
      for (const fr of h.frames) delete fr.position;
      delete h.sliceThickness;
      delete h.spacingBetweenSlices;
    });
    expect(f.reasons).toEqual([
      'The slices record neither where they are nor how far apart they are, so the scan has no scale along the stack.',
    ]);
  });

  it('does not take an ImageType value that merely contains the word for a localizer', async () => {
    const f = await fitnessOf(phantomFiles(), (h) => {
      h.imageType = 'ORIGINAL\\PRIMARY\\AXIAL\\NOTLOCALIZERISH';
    });
    expect(f.fit).toBe(true);
  });
});
