// What the values of a volume mean, as its files state it: the unit (Rescale Type) and the padding
// outside the field of view (Pixel Padding Value and Range Limit), read from real files given those
// elements.
import { readFileSync, writeFileSync } from 'node:fs';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FIXTURES,
  evenText,
  phantomBySlice,
  short16,
  tempFolders,
  withElements,
} from './scans.test-support.js';
import { readVolume } from './volume-reader.js';

const { fresh } = tempFolders('s2m-value-meaning-');
const CRANIUM = join(FIXTURES, 'ct-human-cranium-teeth');

/** The first `n` files of a series, each with the elements added, in a fresh folder. */
function derived(files: string[], n: number, add: Parameters<typeof withElements>[1]): string[] {
  const dir = fresh('series');
  return files.slice(0, n).map((f, i) => {
    const out = join(dir, `${i}.dcm`);
    writeFileSync(out, withElements(readFileSync(f), add));
    return out;
  });
}

const craniumFiles = (): string[] =>
  readdirSync(CRANIUM)
    .sort()
    .map((f) => join(CRANIUM, f));

describe('Rescale Type and Pixel Padding as the volume carries them', () => {
  it('has neither when the files state neither (the real series as they are)', async () => {
    const v = await readVolume(craniumFiles().slice(0, 3));
    expect(v.rescaleType).toBeUndefined();
    expect(v.padding).toBeUndefined();
  });

  it('reads a signed padding value and a Rescale Type on the real head CT (signed, slope 1, intercept 0)', async () => {
    const files = derived(craniumFiles(), 3, [
      { tag: 'x00280120', vr: 'SS', value: short16(-3024) },
      { tag: 'x00281054', vr: 'LO', value: evenText('us') },
    ]);
    const v = await readVolume(files);
    expect(v.rescaleType).toBe('US');
    expect(v.padding).toEqual([-3024, -3024]);
  });

  it('rescales an unsigned padding range as the voxels are (the phantom: unsigned, intercept -1024)', async () => {
    const files = derived(phantomBySlice(), 3, [
      { tag: 'x00280120', vr: 'US', value: short16(10) },
      { tag: 'x00280121', vr: 'US', value: short16(0) },
    ]);
    const v = await readVolume(files);
    expect(v.padding).toEqual([-1024, -1014]);
  });

  it("reads an Enhanced CT's Rescale Type from its Pixel Value Transformation", async () => {
    const v = await readVolume([join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm')]);
    expect(v.rescaleType).toBe('US');
  });
});
