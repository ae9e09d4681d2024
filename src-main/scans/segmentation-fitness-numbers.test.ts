import { describe, expect, it } from 'vitest';
import { engineRefusal, fitnessOf, setFrames } from './fitness.test-support.js';
import type { DicomHeader } from './header-fields.js';
import { MAX_EXTENT_MM, MAX_SLICE_SPACING_MM, MAX_STACK_MM } from './segmentation-fitness.js';
import { phantomBySlice, phantomFiles } from './scans.test-support.js';

// Numbers in the headers of real slices, changed one at a time, that no scan of a head has.

describe('segmentationFitness refuses numbers no scan of a head has, naming them', () => {
  it('an orientation that is not two directions of length 1 at right angles; the engine refuses it too', async () => {
    const cases: [number, number, number, number, number, number][] = [
      [0, 0, 0, 0, 0, 0],
      [2, 0, 0, 0, 2, 0],
      [1, 0, 0, 1, 0, 0],
    ];
    for (const o of cases) {
      const edit = setFrames((fr) => (fr.orientation = o));
      const f = await fitnessOf(phantomFiles(), edit);
      const words = `The image orientation is not a valid direction: the files give [${o.join(', ')}] (Image Orientation), but its row and column directions must each have length 1 and be at right angles. Where the patient's left, front and head lie in the scan cannot be known.`;
      expect(f).toMatchObject({ fit: false, reasons: [words] });
      expect(f.problems).toContain('error bad-orientation');
      expect(await engineRefusal(phantomFiles(), edit)).toBe(words);
    }
    // Cosines rounded to four digits, as some scanners write them, are a direction.
    const rounded = await fitnessOf(
      phantomFiles(),
      setFrames((fr) => (fr.orientation = [1, 0.0004, 0, 0, 0.9999, 0.0004])),
    );
    expect(rounded).toMatchObject({ fit: true, reasons: [] });
  });

  it('slice positions stepping sideways in the image plane, or leaning far past any gantry tilt; the engine refuses them too', async () => {
    // The phantom's slices are axial (normal +z), 1 mm apart along z.
    const step = (dx: number, dz: number) =>
      setFrames((fr, i) => (fr.position = [fr.position![0] + dx * i, fr.position![1], 694.21 + dz * i]));
    const sideways = await fitnessOf(phantomBySlice(), step(1, 0));
    expect(sideways.problems).toContain('error stack-across-slices');
    expect(sideways.reasons).toEqual([
      'The slice positions step 90° away from the direction the images face (their normal): the slices lie side by side in one plane, not one behind the other. A scanner tilts its gantry at most about 30°, so these positions cannot be right, and a model built on them would be flattened and misplaced.',
    ]);
    expect(await engineRefusal(phantomBySlice(), step(1, 0))).toMatch(/step 90° away from the direction/);
    const leaning = await fitnessOf(phantomBySlice(), step(1, 0.1));
    expect(leaning.reasons).toEqual([
      expect.stringMatching(
        /^The slice positions step 84° away from the direction the images face \(their normal\)\. A scanner/,
      ),
    ]);
    // A 30° gantry tilt is a real scan: kept, and built along its tilted stack.
    const tilted = await fitnessOf(phantomBySlice(), step(Math.tan(Math.PI / 6), 1));
    expect(tilted).toMatchObject({ fit: true, reasons: [] });
  });

  it('a stack whose spacing changes (1 mm, then 2 mm) is told so, not as 39 missing slices', async () => {
    const z = (i: number): number => 694.21 + (i < 40 ? i : 40 + 2 * (i - 40));
    const f = await fitnessOf(
      phantomBySlice().slice(0, 80),
      setFrames((fr, i) => (fr.position = [fr.position![0], fr.position![1], z(i)])),
    );
    expect(f.problems).toContain('warning spacing-changes');
    expect(f.problems).not.toContain('warning missing-slices');
    expect(f.fit).toBe(true);
    // Two slices really missing among even ones are still told as missing.
    const gap = await fitnessOf(
      phantomBySlice().slice(0, 80),
      setFrames(
        (fr, i) => (fr.position = [fr.position![0], fr.position![1], 694.21 + i + (i >= 40 ? 2 : 0)]),
      ),
    );
    expect(gap.problems).toContain('warning missing-slices');
  });

  it('slices 1e12 mm apart: larger than any head, and too far apart for a 3D scan', async () => {
    const edit = setFrames((fr, i) => (fr.position = [fr.position![0], fr.position![1], i * 1e12]));
    const f = await fitnessOf(phantomBySlice(), edit);
    expect(f.reasons).toEqual([
      `The scan would cover 231 x 231 x 140000000000000 mm, more than any head (at most ${MAX_EXTENT_MM} mm in every direction): its pixel size or slice positions cannot be right.`,
      `The slices lie 1000000000000 mm apart; the slices of a 3D scan of a jaw lie at most ${MAX_SLICE_SPACING_MM} mm apart.`,
      "The slices say they lie 139000000 km from the scanner's origin (Image Position), farther than any patient lies in a scanner (at most 10 m): their positions cannot be right.",
    ]);
    expect(await engineRefusal(phantomBySlice(), edit)).toMatch(
      /^This scan cannot be made into a model: .*1000 mm/,
    );
    // 25 mm apart: within a head's length (20 slices, 475 mm), but no 3D scan of a jaw.
    const sparse = await fitnessOf(
      phantomBySlice().slice(0, 20),
      setFrames((fr, i) => (fr.position = [fr.position![0], fr.position![1], 700 + 25 * i])),
    );
    expect(sparse.reasons).toEqual([
      `The slices lie 25 mm apart; the slices of a 3D scan of a jaw lie at most ${MAX_SLICE_SPACING_MM} mm apart.`,
    ]);
  });

  it('slices spanning more than a head and neck, with no thickness to contradict them', async () => {
    // The phantom's positions stretched five-fold, its Slice Thickness gone: 695 mm (a reviewer's
    // cranium made so was a "skull" of 778 mm).
    const stretched = await fitnessOf(phantomBySlice(), (h, i) => {
      delete h.sliceThickness;
      for (const fr of h.frames) fr.position = [fr.position![0], fr.position![1], 5 * i];
    });
    expect(stretched.reasons).toEqual([
      `The slices span 695 mm from the first to the last, more than a head and neck (at most ${MAX_STACK_MM} mm): the slice positions may not be right. If the scan holds more of the body than the head, export the slices of the head alone (a series of them) and add that.`,
    ]);
  });

  it('slices further apart than their thickness allows, or positions metres from the scanner', async () => {
    // The phantom's positions stretched four-fold along the stack: 4 mm apart where each slice is
    // 1 mm thick (a reviewer's stretched "head" of 802 mm was made into a model).
    const stretched = await fitnessOf(
      phantomBySlice(),
      setFrames((fr, i) => (fr.position = [fr.position![0], fr.position![1], 4 * i])),
    );
    expect(stretched.reasons).toEqual([
      'The slices lie 4 mm apart, but each shows only 1 mm of the patient (Slice Thickness): 3 mm between slices were never imaged, so a model would be a guess there: the scan was made with gaps between its slices, too sparse for a 3D model, or slices were left out of the export (export the whole series), or the slice positions are not what the scanner wrote.',
    ]);
    const far = await fitnessOf(
      phantomBySlice(),
      setFrames((fr) => (fr.position = [fr.position![0], fr.position![1] + 2e7, fr.position![2]])),
    );
    expect(far.reasons).toEqual([
      "The slices say they lie 20 km from the scanner's origin (Image Position), farther than any patient lies in a scanner (at most 10 m): their positions cannot be right.",
    ]);
  });

  it('a pixel size that makes the images 1.5 m across, or one of 0 mm or less', async () => {
    const wide = await fitnessOf(
      phantomFiles(),
      setFrames((fr) => (fr.pixelSpacing = [3, 3])),
    );
    expect(wide.reasons).toEqual([
      `The scan would cover 1536 x 1536 x 140 mm, more than any head (at most ${MAX_EXTENT_MM} mm in every direction): its pixel size or slice positions cannot be right.`,
    ]);
    const zero = await fitnessOf(
      phantomFiles(),
      setFrames((fr) => (fr.pixelSpacing = [0, 0])),
    );
    expect(zero.reasons).toEqual([
      "The images state a pixel size of 0 x 0 mm, which cannot be right: a pixel's size is more than 0 mm.",
    ]);
    // A negative size sets no tolerance either: the stack is not called crooked by a negative one.
    const negative = await fitnessOf(
      phantomFiles(),
      setFrames((fr) => (fr.pixelSpacing = [-1, 1e-30])),
    );
    expect(negative).toMatchObject({
      reasons: [
        "The images state a pixel size of 1e-30 x -1 mm, which cannot be right: a pixel's size is more than 0 mm.",
      ],
      problems: [],
    });
  });

  it('more bits stored than allocated, or none; the engine refuses it too', async () => {
    const edit = (stored: number) => (h: DicomHeader, i: number) => {
      if (i === 70) h.bitsStored = stored;
    };
    const words = (stored: number): string =>
      `The images say ${stored} of their 16 bits per pixel hold its value (Bits Stored ${stored}, Bits Allocated 16), which cannot be: the pixel values cannot be read as the scanner stored them.`;
    expect((await fitnessOf(phantomBySlice(), edit(40))).reasons).toEqual([words(40)]);
    expect((await fitnessOf(phantomBySlice(), edit(0))).reasons).toEqual([words(0)]);
    expect(await engineRefusal(phantomBySlice(), edit(40))).toContain(words(40));
  });

  it('a volume larger than scan2mesh reads, counted in the bytes its samples take', async () => {
    // 6000 x 6000 pixels of 0.05 mm (a plausible 300 mm across) x 140 slices: 10 GB as int16.
    const huge = (slope: number) => (h: DicomHeader) => {
      h.rows = 6000;
      h.columns = 6000;
      for (const fr of h.frames) Object.assign(fr, { pixelSpacing: [0.05, 0.05], slope });
    };
    expect((await fitnessOf(phantomBySlice(), huge(1))).reasons).toEqual([
      'This scan would need 10.1 GB of memory as a volume (6000 x 6000 x 140 voxels of 2 bytes each); the most scan2mesh reads is 3 GB. Export it again with a smaller field of view, or voxels coarser by a quarter or more, to stay under that.',
    ]);
    // A slope that is not a whole number makes the volume float32: twice the bytes, and it says so.
    expect((await fitnessOf(phantomBySlice(), huge(0.5))).reasons[0]).toMatch(
      /20\.2 GB .* of 4 bytes each, since its Rescale Slope or Intercept \(slope 0\.5, intercept -1024\) is not a whole number/,
    );
  });

  it('a rescale slope of 0, one that overflows, or values that are not numbers; the engine refuses them too', async () => {
    const withRescale = (slope: number, intercept = -1024) =>
      setFrames((fr, i) => {
        if (i === 3) Object.assign(fr, { slope, intercept });
      });
    const reasons = async (slope: number, intercept?: number): Promise<string[]> =>
      (await fitnessOf(phantomBySlice(), withRescale(slope, intercept))).reasons;
    expect(await reasons(0)).toEqual([
      "The images' value scale cannot be right (Rescale Slope 0, Rescale Intercept -1024): a slope of 0 gives every pixel the same value, so bone and teeth cannot be told apart by their density.",
    ]);
    expect(await reasons(1e308)).toEqual([
      "The images' value scale cannot be right (Rescale Slope 1e+308, Rescale Intercept -1024): they turn the stored values into numbers too large to hold, so bone and teeth cannot be told apart by their density.",
    ]);
    expect((await reasons(NaN))[0]).toMatch(/Rescale Slope NaN.*they are not numbers/);
    expect((await reasons(1, Infinity))[0]).toMatch(/Rescale Intercept Infinity.*they are not numbers/);
    // Real slopes of CT and CBCT exports stay fit.
    for (const slope of [1, 0.5, 2.5, 0.0625]) expect(await reasons(slope)).toEqual([]);
    expect(await engineRefusal(phantomBySlice(), withRescale(0))).toMatch(/Rescale Slope 0/);
  });
});
