// What the values of a volume mean, as its files state it: the unit (Rescale Type) and the padding
// outside the field of view (Pixel Padding Value and Range Limit), read from real files given those
// elements.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import dicomParser from 'dicom-parser';
import {
  FIXTURES,
  evenText,
  phantomBySlice,
  short16,
  tempFolders,
  withElements,
} from './scans.test-support.js';
import { copyPlanes, type PlaneCopy } from './plane-copy.js';
import { heldSlices } from './slice-source.js';
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

  it('keeps one padding value when the slices differ in Rescale Intercept: each slice maps its own padding', async () => {
    // The real head CT's clipped air (-1024) declared as padding; the middle slice stores its values
    // 24 higher with Rescale Intercept -24, so the same voxels come out the same but for the padding,
    // which its own intercept put at -1048: read through the first slice's, it was no padding there.
    const files = derived(craniumFiles(), 3, [{ tag: 'x00280120', vr: 'SS', value: short16(-1024) }]);
    const plain = await readVolume(files);
    const mid = readFileSync(files[1]!);
    const el = dicomParser.parseDicom(mid).elements['x00281052']!;
    expect(el.length).toBe(4);
    mid.write('-24 ', el.dataOffset, 'latin1');
    writeFileSync(files[1]!, mid);
    // Read plainly, and as the local engine reads (planes copied by other threads, after the rest).
    const regions = new Map(files.map((f) => [f, { file: f, offset: 0, size: statSync(f).size }]));
    const copied = {
      source: heldSlices(new Map(), regions),
      shared: true,
      copyPlanes: async (planes: PlaneCopy[], out: Int16Array) => {
        copiedPlanes += planes.length;
        return copyPlanes(planes, out);
      },
    };
    let copiedPlanes = 0;
    for (const [how, v] of [
      ['plain', await readVolume(files)],
      ['copied', await readVolume(files, copied)],
    ] as const) {
      expect(v.padding, how).toEqual([-1024, -1024]);
      const plane = v.dims[0] * v.dims[1];
      let padded = 0;
      for (let i = plane; i < 2 * plane; i++) {
        const was = plain.data[i] as number;
        if (was === -1024) padded++;
        if (v.data[i] !== (was === -1024 ? -1024 : was - 24))
          expect.fail(`${how}: voxel ${i} is ${v.data[i]}`);
      }
      expect(padded).toBeGreaterThan(0.01 * plane);
      expect(Array.from(v.data.subarray(0, plane)), how).toEqual(Array.from(plain.data.subarray(0, plane)));
    }
    expect(copiedPlanes).toBe(3);
  });

  it("reads an Enhanced CT's Rescale Type from its Pixel Value Transformation", async () => {
    const v = await readVolume([join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm')]);
    expect(v.rescaleType).toBe('US');
  });
});
