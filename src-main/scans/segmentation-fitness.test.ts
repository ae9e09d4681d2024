import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fitnessOf } from './fitness.test-support.js';
import type { DicomHeader } from './header-fields.js';
import {
  MIN_EXTENT_MM,
  MIN_PIXELS,
  MIN_SLICES,
  segmentationFitness,
  type FitnessInput,
} from './segmentation-fitness.js';
import { summarizeSeries } from './series-summary.js';
import { FIXTURES, phantomBySlice, phantomFiles } from './scans.test-support.js';
import { readSeriesHeaders } from './volume-reader.js';

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
    expect(await fitnessOf(phantomFiles())).toEqual({ fit: true, reasons: [], problems: [] });
  });

  it('finds the 256 x 256 x 108 human cranium CT fit, and the series summary says so', async () => {
    const dir = join(FIXTURES, 'ct-human-cranium-teeth');
    const files = readdirSync(dir).map((f) => join(dir, f));
    expect(await fitnessOf(files)).toMatchObject({ fit: true, reasons: [] });
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
    expect(f.reasons.join(' ')).toMatch(/covers only 231 x 231 x 2 mm; a jaw needs at least 30 mm/);
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
      `The scan covers only 16 x 16 x 4 mm; a jaw needs at least ${MIN_EXTENT_MM} mm in every direction.`,
    ]);
  });

  it('measures the stack as it measures the plane, edge to edge: 20 slices 1.5 mm apart cover 30 mm', () => {
    const stack = { ...goodCt, slices: 20, sliceSpacingMm: 1.5 };
    // First to last centre 28.5 mm, plus half a spacing beyond each end.
    expect(segmentationFitness({ ...stack, stackLengthMm: 28.5 })).toEqual({ fit: true, reasons: [] });
    expect(segmentationFitness({ ...stack, stackLengthMm: 27 }).reasons).toEqual([
      `The scan covers only 230.9 x 230.9 x 28.5 mm; a jaw needs at least ${MIN_EXTENT_MM} mm in every direction.`,
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
    expect(f).toMatchObject({
      fit: false,
      reasons: [
        'The images do not state their pixel size in the patient (Pixel Spacing), so the scan has no physical scale: a model made from it would have no true size.',
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
      'The slices do not record where they lie in the patient (Image Position), so a model could not be placed from the true slice positions: it could be shifted or mirrored.',
    ]);
  });

  it('one slice without a position: no model from an order guessed by instance numbers', async () => {
    // Placing the rest by instance numbers from a guessed origin shifted the mesh, or mirrored it
    // head to foot when the numbers ran against the positions.
    const f = await fitnessOf(phantomBySlice(), (h, i) => {
      if (i === 50) for (const fr of h.frames) delete fr.position;
    });
    expect(f.fit).toBe(false);
    expect(f.reasons).toEqual([
      '1 of the 140 slices does not record where it lies in the patient (Image Position), so a model could not be placed from the true slice positions: it could be shifted or mirrored.',
    ]);
    expect(f.problems).toEqual(['warning no-positions']);
  });

  it('slices without an orientation: no model taken as axial', async () => {
    const f = await fitnessOf(phantomFiles(), (h) => {
      for (const fr of h.frames) delete fr.orientation;
    });
    expect(f.reasons).toEqual([
      "The slices do not record how they are oriented in the patient (Image Orientation), so a model's left and right, front and back could not be known.",
    ]);
    const some = await fitnessOf(phantomBySlice(), (h, i) => {
      if (i % 2) for (const fr of h.frames) delete fr.orientation;
    });
    expect(some.reasons).toEqual([
      "70 of the 140 slices do not record how they are oriented in the patient (Image Orientation), so a model's left and right, front and back could not be known.",
    ]);
  });

  it('slices with another pixel size: refused, not placed scaled by the first one', async () => {
    const f = await fitnessOf(phantomBySlice(), (h, i) => {
      if (i >= 70) for (const fr of h.frames) fr.pixelSpacing = [0.8, 0.8];
    });
    expect(f.fit).toBe(false);
    expect(f.problems).toContain('error mixed-pixel-spacing');
    expect(f.reasons).toEqual([
      'The images in this series do not all have the same pixel size (0.4512 x 0.4512 mm and 0.8 x 0.8 mm), so they do not form one volume.',
    ]);
    // The same size written with other digits is the same size.
    const same = await fitnessOf(phantomBySlice(), (h, i) => {
      if (i >= 70)
        for (const fr of h.frames) fr.pixelSpacing = [fr.pixelSpacing![0] + 1e-6, fr.pixelSpacing![1]];
    });
    expect(same.fit).toBe(true);
  });

  it('slices that store their pixels otherwise than the others: signed and unsigned, 16 and 8 bits', async () => {
    const signs = await fitnessOf(phantomBySlice(), (h, i) => {
      if (i % 2 === 0) h.pixelRepresentation = 1 - h.pixelRepresentation;
    });
    expect(signs.problems).toContain('error mixed-pixel-format');
    expect(signs.reasons).toEqual([
      'The images in this series do not all store their pixels the same way (signed and unsigned values, Pixel Representation), so their values do not form one volume.',
    ]);
    const widths = await fitnessOf(phantomBySlice(), (h, i) => {
      if (i === 70) h.bitsAllocated = 8;
    });
    expect(widths.reasons).toContain(
      'The images in this series do not all store their pixels the same way (16 and 8 bits per value, Bits Allocated), so their values do not form one volume.',
    );
    // Bits Stored may differ: each file's values are masked by its own.
    const stored = await fitnessOf(phantomBySlice(), (h, i) => {
      if (i !== 70) return;
      h.bitsStored = 16;
      h.highBit = 15;
    });
    expect(stored.fit).toBe(true);
    // Values kept in the high bits (High Bit 15 of 12 stored) are not what CT stores.
    const high = await fitnessOf(phantomBySlice(), (h) => {
      h.highBit = 15;
    });
    expect(high.reasons).toEqual([
      'The images say their 12-bit values end in bit 15 (High Bit 15), where CT keeps them in bits 0 to 11 (High Bit 11): the pixel values could be misread.',
    ]);
    // Two value scales: the volume was read on the lowest slice's, silently (a review).
    const scales = await fitnessOf(phantomBySlice(), (h, i) => {
      if (i % 2 === 1) h.rescaleType = 'US';
    });
    expect(scales.reasons).toEqual([
      'The images in this series do not all store their pixels the same way (values in HU and in US, Rescale Type), so their values do not form one volume.',
    ]);
    // Rescale Type left out is Hounsfield units, on a CT: the same scale as HU.
    const unsaid = await fitnessOf(phantomBySlice(), (h, i) => {
      if (i % 2 === 1) h.rescaleType = 'HU';
      else delete h.rescaleType;
    });
    expect(unsaid.fit).toBe(true);
  });

  it('slices more than half a pixel off the line through the stack (0.45 mm pixels)', async () => {
    const shift = (mm: number) => (h: DicomHeader, i: number) => {
      if (i % 2)
        for (const fr of h.frames) fr.position = [fr.position![0] + mm, fr.position![1], fr.position![2]];
    };
    const off = await fitnessOf(phantomBySlice(), shift(0.9));
    expect(off.fit).toBe(false);
    expect(off.reasons).toEqual([
      'The slices do not lie on one straight line (one is 0.89 mm off it; a slice may be at most 0.23 mm off, half a pixel), so they do not form one regular scan.',
    ]);
    expect((await fitnessOf(phantomBySlice(), shift(0.1))).fit).toBe(true);
  });

  it('does not take an ImageType value that merely contains the word for a localizer', async () => {
    const f = await fitnessOf(phantomFiles(), (h) => {
      h.imageType = 'ORIGINAL\\PRIMARY\\AXIAL\\NOTLOCALIZERISH';
    });
    expect(f.fit).toBe(true);
  });
});
