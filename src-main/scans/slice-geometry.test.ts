// Slice geometry: gantry tilt (positions not along the normal), uneven steps, RT Dose style frame offsets.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DicomHeader } from './header-fields.js';
import { layoutSlices } from './slice-layout.js';
import { planeSources, stackGrid } from './stack-grid.js';
import { renderPlane } from './preview.js';
import { summarizeSeries } from './series-summary.js';
import {
  FIXTURES,
  patchElement,
  phantomBySlice,
  phantomFiles,
  python,
  sameLength,
} from './scans.test-support.js';
import { readSeriesHeaders, readVolume } from './volume-reader.js';
import type { Volume } from './volume.js';

const tmp = mkdtempSync(join(tmpdir(), 's2m-slices-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Patient position of voxel (0, 0, m), through the volume's own geometry. */
const planePosition = (v: Volume, m: number): number[] =>
  v.origin.map((c, i) => c + m * v.spacing[2] * v.sliceDir[i]!);

describe('stackGrid', () => {
  it('follows the line through tilted positions and interpolates uneven steps at their true places', () => {
    const tan = Math.tan((20 * Math.PI) / 180);
    const z = [0, 1, 2, 4, 5, 8, 9];
    const grid = stackGrid(
      z.map((zk) => [0, zk * tan, zk]),
      [0, 0, 1],
      1,
    );
    const len = Math.hypot(1, tan);
    grid.dir.forEach((c, i) => expect(c).toBeCloseTo([0, tan / len, 1 / len][i]!, 9));
    expect(grid.spacing).toBeCloseTo(len, 9);
    expect(grid.resampled).toBe(true);
    expect(grid.count).toBe(10);
    expect(grid.step).toBeCloseTo(len, 9);
    expect(grid.bridged.map((g) => [g.slice, g.fromMm, g.toMm])).toEqual([
      [3, 2, 4],
      [5, 5, 8],
    ]);
    expect(grid.unbridgeable).toEqual([]);
    // Plane 3 lies halfway between the slices at 2 and 4; plane 6 a third of the way from 5 to 8.
    const src = planeSources(grid);
    expect(src[3]).toEqual({ k: 2, w: expect.closeTo(0.5, 9) as number });
    expect(src[6]).toEqual({ k: 4, w: expect.closeTo(1 / 3, 9) as number });
    expect(src[8]).toEqual({ k: 5, w: 0 });
  });

  it('calls a gap wider than 3 times the spacing (and more than 4 mm beyond it) unbridgeable', () => {
    const at = (z: number[]): ReturnType<typeof stackGrid> =>
      stackGrid(
        z.map((zk) => [0, 0, zk]),
        [0, 0, 1],
        1,
      );
    expect(at([0, 1, 2, 3, 6, 7, 8]).unbridgeable).toEqual([]);
    expect(at([0, 1, 2, 3, 7, 8, 9]).unbridgeable).toEqual([{ slice: 4, fromMm: 3, toMm: 7, sizeMm: 4 }]);
    // 3 mm slices: 9 mm would be 3 spacings, but 7 mm beyond the spacing is too much already.
    expect(at([0, 3, 6, 9, 17, 20, 23]).unbridgeable.map((g) => g.sizeMm)).toEqual([8]);
    // Two slices missing from 4/3 mm slices, their positions written to 3 decimals as scanners do: the
    // 4 mm gap is a micrometre over 3 times the 1.333 mm median, and still two missing slices (it was
    // refused as "a 4.0 mm gap ... wider than 4 mm").
    const thirds = (missing: number[]): number[] =>
      Array.from({ length: 30 }, (_, k) => k)
        .filter((k) => !missing.includes(k))
        .map((k) => Number(((k * 4) / 3).toFixed(3)));
    const rounded = at(thirds([10, 11]));
    expect(rounded.spacing).toBeCloseTo(1.333, 9);
    expect(rounded.unbridgeable).toEqual([]);
    expect(rounded.bridged.map((g) => g.sizeMm.toFixed(3))).toEqual(['4.000']);
    // A third missing slice is still too wide.
    expect(at(thirds([10, 11, 12])).unbridgeable.map((g) => g.sizeMm.toFixed(3))).toEqual(['5.333']);
  });

  it("bridges a gap the slices' own thickness covers, and no other wider than 3 spacings", () => {
    // 0.5 mm slices over 40 mm, then 2 mm ones over 60 mm: the median is 0.5 mm, and every 2 mm step
    // was refused as "a gap wider than 1.5 mm", though 2 mm thick slices leave nothing unseen.
    const z = [
      ...Array.from({ length: 80 }, (_, k) => 0.5 * k),
      ...Array.from({ length: 30 }, (_, k) => 40 + 2 * k),
    ];
    const grid = (thick: (zk: number) => number | undefined) =>
      stackGrid(
        z.map((zk) => [0, 0, zk]),
        [0, 0, 1],
        1,
        Infinity,
        z.map(thick),
      );
    const changed = grid((zk) => (zk < 40 ? 0.5 : 2));
    expect(changed.spacing).toBe(0.5);
    expect(changed.unbridgeable).toEqual([]);
    expect(changed.bridged).toHaveLength(29);
    expect(changed.resampled).toBe(true);
    // The same positions with 0.5 mm slices throughout (slices dropped from a series: a review's
    // every fourth slice kept), or with no thickness said, are holes.
    expect(grid(() => 0.5).unbridgeable).toHaveLength(29);
    expect(grid(() => undefined).unbridgeable).toHaveLength(29);
  });
});

describe('the grid of unevenly spaced slices', () => {
  const along = (z: number[], maxCount?: number): ReturnType<typeof stackGrid> =>
    stackGrid(
      z.map((zk) => [0, 0, zk]),
      [0, 0, 1],
      1,
      maxCount,
    );
  // 1 mm slices over the first 10 mm, 3 mm apart for 60 mm above: the median gap is 3 mm.
  const thinLow = [
    ...Array.from({ length: 10 }, (_, k) => k),
    ...Array.from({ length: 21 }, (_, k) => 10 + 3 * k),
  ];

  it('takes the step of a run of thin slices, not the median', () => {
    const grid = along(thinLow);
    expect(grid.spacing).toBe(3);
    expect(grid.resampled).toBe(true);
    expect(grid.step).toBeCloseTo(1, 9);
    expect(grid.count).toBe(71);
  });

  it('keeps the median where the thin step would take too many planes, or is a stray pair', () => {
    expect(along(thinLow, 70).count).toBe(24); // 70 mm on the 3 mm median
    // 0.2 mm slices over 2 mm and 5 mm ones over 100 mm: 511 planes for 31 slices, more than 4 each.
    const thinSliver = [
      ...Array.from({ length: 10 }, (_, k) => 0.2 * k),
      ...Array.from({ length: 21 }, (_, k) => 2 + 5 * k),
    ];
    expect(along(thinSliver).count).toBe(21); // 102 mm on the 5 mm median
    // One slice written twice 0.5 mm apart in a 2 mm scan: the grid stays at 2 mm.
    const stray = Array.from({ length: 30 }, (_, k) => 2 * k + (k > 15 ? 0.5 : 0));
    expect(along(stray).count).toBe(30); // 58.5 mm on the 2 mm median
  });
});

describe('readVolume on a tilted, unevenly spaced stack of real slices', () => {
  it('puts every slice at its own position (shear kept) and its pixels on that plane', async () => {
    const dir = join(tmp, 'tilt');
    mkdirSync(dir);
    const ordered = phantomBySlice().slice(30, 56);
    const kept = ordered.filter((_, k) => k !== 5 && k !== 6 && k !== 12); // 3 and 2 mm gaps
    const tan = 0.36; // about 20 degrees of gantry tilt: y moves with z
    const files = kept.map((f, n) => {
      const bytes = readFileSync(f);
      const z = 694.21 + 30 + ordered.indexOf(f);
      const y = -1.85 + (z - 724.21) * tan;
      patchElement(
        bytes,
        'x00200032',
        sameLength(bytes, 'x00200032', `-115.5\\${y.toFixed(3)}\\${z.toFixed(2)}`),
      );
      const to = join(dir, `t${n}`);
      writeFileSync(to, bytes);
      return to;
    });
    const v = await readVolume(files);
    const len = Math.hypot(1, tan);
    expect(v.sliceDir[0]).toBeCloseTo(0, 9);
    expect(v.sliceDir[1]).toBeCloseTo(tan / len, 4);
    expect(v.sliceDir[2]).toBeCloseTo(1 / len, 4);
    expect(v.dims[2]).toBe(26);
    expect(v.spacing[2]).toBeCloseTo(len, 4);
    const plane = v.dims[0] * v.dims[1];
    for (const [n, f] of files.entries()) {
      const m = ordered.indexOf(kept[n]!);
      const [x, y, z] = (await readSeriesHeaders([f]))[0]!.frames[0]!.position!;
      planePosition(v, m).forEach((c, i) => expect(c).toBeCloseTo([x, y, z][i]!, 3));
      const alone = await readVolume([f]);
      expect(
        Buffer.from(v.data.buffer, m * plane * 2, plane * 2).equals(Buffer.from(alone.data.buffer)),
      ).toBe(true);
    }
  });

  it('keeps the phantom as it is: 1 mm apart, not resampled', async () => {
    const { layout } = layoutSlices(await readSeriesHeaders(phantomFiles()));
    expect(layout.stack.resampled).toBe(false);
    expect(layout.stack.count).toBe(140);
    expect(layout.stack.step).toBeCloseTo(1, 6);
  });
});

describe('layoutSlices on a multi-frame file with a GridFrameOffsetVector (RT Dose style)', () => {
  it('places frames by their offsets, relative or absolute, evenly or not', async () => {
    const src = phantomBySlice()[0]!;
    const copy = join(tmp, 'dose-like');
    copyFileSync(src, copy);
    const [base] = await readSeriesHeaders([copy]);
    const z0 = base!.frames[0]!.position![2];
    const { position: _p, ...rest } = base!.frames[0]!;
    const header = (offsets: number[]): DicomHeader => ({
      ...base!,
      numberOfFrames: offsets.length,
      frames: offsets.map((_, k) => (k === 0 ? base!.frames[0]! : { ...rest })),
      gridFrameOffsets: offsets,
    });
    for (const offsets of [
      [0, 2.5, 5, 7.5, 10],
      [z0, z0 + 2.5, z0 + 5, z0 + 7.5, z0 + 10],
    ]) {
      const { layout, problems } = layoutSlices([header(offsets)]);
      expect(problems.map((p) => p.code)).not.toContain('no-positions');
      expect(layout.positionsKnown).toBe(true);
      expect(layout.sliceSpacing).toBeCloseTo(2.5, 9);
      expect(layout.stack.step).toBeCloseTo(2.5, 9);
      expect(layout.frames.map((f) => f.position[2] - z0)).toEqual(offsets.map((o) => o - offsets[0]!));
    }
    const uneven = layoutSlices([header([0, 2, 4, 8, 10])]).layout;
    expect(uneven.stack.resampled).toBe(true);
    expect(uneven.stack.count).toBe(6);
    expect(uneven.stack.bridged.map((g) => g.sizeMm)).toEqual([4]);
  });
});

describe('a real image without a pixel size', () => {
  const file = join(FIXTURES, 'transfer-syntax', 'deflated-explicit-le.dcm');

  it('is rendered, labelled as having no scale, and is unfit for a model', async () => {
    const v = await readVolume([file]);
    expect(v.scaleUnknown).toBe(true);
    const preview = renderPlane(v, 'x', 'axial', 0, { window: 256, level: 128 });
    expect(preview.scaleUnknown).toBe(true);
    expect(preview.pixelSpacing).toEqual([1, 1]);
    const { summary } = summarizeSeries(await readSeriesHeaders([file]), (p) => p);
    expect(summary.pixelSpacingUnknown).toBe(true);
    expect(summary.problems.find((p) => p.code === 'no-pixel-spacing')?.message).toMatch(
      /no physical scale: the preview shows it with 1 mm pixels/,
    );
    expect(summary.fitness.fit).toBe(false);
    expect(summary.fitness.reasons).toContain(
      'The images do not state their pixel size in the patient (Pixel Spacing), so the scan has no physical scale: a model made from it would have no true size.',
    );
    const phantom = await readVolume(phantomBySlice().slice(0, 2));
    expect(phantom.scaleUnknown).toBeUndefined();
  });
});

describe('real slices that give only Imager Pixel Spacing (the size at a detector)', () => {
  it('are not given that size: no physical scale, no model', async () => {
    // pydicom rewrites 30 phantom slices: Pixel Spacing (0.45 mm) removed, Imager Pixel Spacing 1.2 mm.
    const dir = join(tmp, 'imager-spacing');
    mkdirSync(dir, { recursive: true });
    const files = python<string[]>(
      String.raw`
import sys, json, os, pydicom
out = sys.argv[1]; made = []
for n, f in enumerate(sys.argv[2:]):
    ds = pydicom.dcmread(f)
    del ds.PixelSpacing
    ds.ImagerPixelSpacing = [1.2, 1.2]
    to = os.path.join(out, 's%03d.dcm' % n); ds.save_as(to); made.append(to)
print(json.dumps(made))`,
      [dir, ...phantomBySlice().slice(0, 30)],
    );
    const { summary } = summarizeSeries(await readSeriesHeaders(files), (p) => p);
    expect(summary.problems.map((p) => p.code)).toContain('no-pixel-spacing');
    expect(summary.fitness.fit).toBe(false);
    expect(summary.fitness.reasons).toContain(
      'The images do not state their pixel size in the patient (Pixel Spacing), so the scan has no physical scale: a model made from it would have no true size.',
    );
  });
});
