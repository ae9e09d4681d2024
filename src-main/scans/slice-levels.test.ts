import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, phantomBySlice, tempFolders, withPixels } from './scans.test-support.js';
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
});
