import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FIXTURES,
  phantomBySlice,
  pydicomMissing,
  python,
  tempFolders,
  withPixels,
} from './scans.test-support.js';
import { layoutSlices } from './slice-layout.js';
import { checkSliceLevels } from './slice-levels.js';
import { readSeriesHeaders, readVolumeForSegmentation, readVolume } from './volume-reader.js';

// One slice whose values are shifted or scaled away from its neighbours' (a reviewer's crafted cases,
// built here from the real scans): its Rescale Intercept 2000, or none at all, or a slope of 3. The
// correlation check does not see them, and the job made a plate of "bone" across the model.

const CRANIUM = join(FIXTURES, 'ct-human-cranium-teeth');
const { fresh } = tempFolders('s2m-levels-');
const cranium = (): string[] =>
  readdirSync(CRANIUM)
    .sort()
    .map((f) => join(CRANIUM, f));

/** A copy of `files` with `edit` applied to the bytes of file `at`. */
function copyWith(files: string[], at: number, edit: (bytes: Buffer) => Buffer): string[] {
  const dir = fresh('copy');
  return files.map((src, i) => {
    const to = join(dir, basename(src));
    const bytes = readFileSync(src);
    writeFileSync(to, i === at ? edit(bytes) : bytes);
    return to;
  });
}

describe('a slice whose values sit apart from both neighbours', () => {
  it('is refused for a model, naming its file: a stored value shifted by 2000 or by 1024, or scaled by 3', async () => {
    // The cranium stores Hounsfield units with a slope of 1 and an intercept of 0: its stored values
    // moved as a wrong intercept or slope would move them.
    for (const [what, f] of [
      ['2000 above', (s: number) => s + 2000],
      ['1024 above (no intercept)', (s: number) => s + 1024],
      ['scaled by 3', (s: number) => s * 3],
    ] as const) {
      const files = copyWith(cranium(), 54, (b) =>
        withPixels(b, (s) => Math.max(-32768, Math.min(32767, f(s)))),
      );
      const err = await readVolumeForSegmentation(files).catch((e: unknown) => e);
      expect(String(err), what).toMatch(
        /^AppError: The values of slice 55 of 108 \(slice055\.dcm\) lie up to \d+ (above|below) those of the slices beside it, which agree with each other: its Rescale Slope or Intercept, or its image data, is not like theirs/,
      );
    }
  });

  it('is not a slice with metal streaks, noise, or the real scans as they are', async () => {
    for (const files of [cranium(), phantomBySlice()]) {
      const headers = await readSeriesHeaders(files);
      const v = await readVolume(files);
      expect(() => checkSliceLevels(v, layoutSlices(headers).layout)).not.toThrow();
    }
    // Streaks of +-800 HU from a filling, in one slice through the teeth: its high values up, its low
    // ones down, not all one way.
    const files = cranium();
    const headers = await readSeriesHeaders(files);
    const v = await readVolume(files);
    const [nx, ny] = v.dims;
    const k = 8;
    const [cy, cx] = [Math.round(ny * 0.72), nx / 2];
    for (let j = 0; j < ny; j++)
      for (let i = 0; i < nx; i++) {
        const dist = Math.hypot(j - cy, i - cx) + 1;
        const angle = Math.atan2(j - cy, i - cx);
        let add = 0;
        for (let r = 0; r < 24; r++) {
          const off = Math.abs(Math.sin(angle - (Math.PI * r) / 24)) * dist;
          add += (r % 2 ? 1 : -1) * 800 * Math.exp(-off / 1.5) * Math.exp(-dist / (ny * 0.6));
        }
        const p = k * nx * ny + j * nx + i;
        v.data[p] = Math.round((v.data[p] as number) + add);
      }
    expect(() => checkSliceLevels(v, layoutSlices(headers).layout)).not.toThrow();
  });

  it.skipIf(pydicomMissing())(
    'on another scale than the scan’s, is refused whatever its neighbours: runs of slices, end slices, slopes about air',
    async () => {
      // Files whose Rescale Intercept or Slope is not the series' common one, their pixels left as
      // they were (a reviewer's cases, done before): each is read against the nearest slices of the
      // common scale.
      for (const [name, slices, slope, intercept] of [
        ['two slices, intercept 300', [50, 51], '1', '300'],
        ['the first slice, intercept 2000', [0], '1', '2000'],
        ['slope 1.5 about air', [50], '1.5', '512'],
      ] as const) {
        const dir = fresh('scale');
        python(
          String.raw`
import sys, json, os, glob, pydicom
src, out, slope, intercept = sys.argv[1:5]
picked = set(json.loads(sys.argv[5]))
for i, f in enumerate(sorted(glob.glob(src + '/*'))):
    d = pydicom.dcmread(f)
    if i in picked:
        d.RescaleSlope = slope
        d.RescaleIntercept = intercept
    d.save_as(os.path.join(out, os.path.basename(f)))
print(json.dumps(True))`,
          [CRANIUM, dir, slope, intercept, JSON.stringify(slices)],
        );
        const files = readdirSync(dir)
          .sort()
          .map((f) => join(dir, f));
        const err = await readVolumeForSegmentation(files).catch((e: unknown) => e);
        expect(String(err), name).toMatch(
          new RegExp(
            `^AppError: The values of slice ${slices[0]! + 1} of 108 \\(slice${String(slices[0]! + 1).padStart(3, '0')}\\.dcm\\) lie up to \\d+ (above|below) those of the slices near it that state the scan’s common value scale`,
          ),
        );
      }
      // A run of twelve on another scale whose four end slices each side match (their pixels moved
      // back) and whose middle does not; and a slice on another scale in a stack missing a slice,
      // which is rebuilt on an even grid (a reviewer's bypasses of the first version).
      for (const [name, script, expected] of [
        [
          'a long run, matched at its ends',
          String.raw`
import sys, os, glob, pydicom, numpy as np
src, out = sys.argv[1:3]
for i, f in enumerate(sorted(glob.glob(src + '/*'))):
    d = pydicom.dcmread(f)
    if 39 <= i <= 50:
        d.RescaleIntercept = '2000'
        if i <= 42 or i >= 47:
            d.PixelData = (d.pixel_array.astype(np.int32) - 2000).astype(np.int16).tobytes()
    d.save_as(os.path.join(out, os.path.basename(f)))
print('true')`,
          /^AppError: The values of slice 4[4-7] of 108 /,
        ],
        [
          'a slice missing elsewhere',
          String.raw`
import sys, os, glob, pydicom
src, out = sys.argv[1:3]
for i, f in enumerate(sorted(glob.glob(src + '/*'))):
    if i == 19:
        continue
    d = pydicom.dcmread(f)
    if i == 59:
        d.RescaleIntercept = '2000'
    d.save_as(os.path.join(out, os.path.basename(f)))
print('true')`,
          /^AppError: The values of slice 59 of 107 \(slice060\.dcm\) lie up to 2000 above/,
        ],
      ] as const) {
        const dir = fresh('scale');
        python(script, [CRANIUM, dir]);
        const files = readdirSync(dir)
          .sort()
          .map((f) => join(dir, f));
        const err = await readVolumeForSegmentation(files).catch((e: unknown) => e);
        expect(String(err), name).toMatch(expected);
      }
      // Every other slice on another scale with its pixels to match: read alike, fit.
      const dir = fresh('matched');
      python(
        String.raw`
import sys, json, os, glob, pydicom, numpy as np
src, out = sys.argv[1:3]
for i, f in enumerate(sorted(glob.glob(src + '/*'))):
    d = pydicom.dcmread(f)
    if i % 2:
        d.PixelData = (d.pixel_array.astype(np.int32) + 1024).astype(np.int16).tobytes()
        d.RescaleIntercept = '-1024'
    d.save_as(os.path.join(out, os.path.basename(f)))
print(json.dumps(True))`,
        [CRANIUM, dir],
      );
      const matched = readdirSync(dir)
        .sort()
        .map((f) => join(dir, f));
      await expect(readVolumeForSegmentation(matched)).resolves.toBeDefined();
    },
  );
});
