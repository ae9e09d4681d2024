// A declared Pixel Padding Value wider than the stored bits (a writer's habit: 0xF000 with 12 bits)
// is the padding the header names: read whole, where masking read it as a grey value of the image.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { phantomFiles, short16, withElements, withPixels } from './scans.test-support.js';
import { readVolume } from './volume-reader.js';

const dir = mkdtempSync(join(tmpdir(), 's2m-wide-padding-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a padding value wider than Bits Stored', () => {
  it('is read whole, as the padding it is, while the image is read from its stored bits', async () => {
    const files = phantomFiles().map((f) => {
      const out = join(dir, basename(f));
      const corner = withPixels(readFileSync(f), (v, c, r) => (c + r < 40 ? 0xf000 : v));
      writeFileSync(out, withElements(corner, [{ tag: 'x00280120', vr: 'US', value: short16(0xf000) }]));
      return out;
    });
    const volume = await readVolume(files);
    // 0xF000 - 1024 leaves the int16 range: the volume is read as floats.
    expect(volume.padding).toEqual([0xf000 - 1024, 0xf000 - 1024]);
    expect(volume.data[0]).toBe(0xf000 - 1024);
    const original = await readVolume(phantomFiles());
    const [nx] = volume.dims;
    const middle = 256 + nx * 256;
    expect(volume.data[middle]).toBe(original.data[middle]);
  });
});
