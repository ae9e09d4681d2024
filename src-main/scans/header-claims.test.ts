// Header values that cannot be what a scan says were read as a guess and a model made (a review):
// Number of Frames "-2", "0" or "2.5", Photometric Interpretation "XYZ", a Pixel Spacing of three
// values. Each is derived from a real fixture and must now be refused in words.
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IntakeResult } from '../../src-shared/scans.js';
import { isUsable } from '../../src-shared/series-usable.js';
import { intake } from './intake.js';
import { FIXTURES, patchElement, python, sameLength, tempFolders } from './scans.test-support.js';

const { fresh } = tempFolders('s2m-claims-');
const CRANIUM = join(FIXTURES, 'ct-human-cranium-teeth');
const TWO_FRAMES = join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm');

async function run(paths: string[]): Promise<IntakeResult> {
  return (await intake(paths, { tempDir: fresh('work') })).result;
}

/** The real 108-slice CT, with slice050.dcm's element `tag` set to `text` (padded to its length). */
function craniumWith(name: string, tag: string, text: string): string {
  const dir = fresh(name);
  for (const f of readdirSync(CRANIUM)) copyFileSync(join(CRANIUM, f), join(dir, f));
  const bytes = readFileSync(join(dir, 'slice050.dcm'));
  patchElement(bytes, tag, sameLength(bytes, tag, text));
  writeFileSync(join(dir, 'slice050.dcm'), bytes);
  return dir;
}

/** Every message intake gives: series problems, fitness reasons and skipped files' reasons. */
function said(r: IntakeResult): string {
  return JSON.stringify([r.series.map((s) => [s.problems, s.fitness]), r.skipped, r.problems]);
}

describe('Number of Frames that is no count of images', () => {
  for (const value of ['-2', '0', '2.5']) {
    it(`refuses "${value}" as damaged, where it was read as some count of images`, async () => {
      const out = join(fresh(`frames${value}`), 'frames.dcm');
      // pydicom writes the text as it is given (2.5 is no IS, so it is written raw).
      python<number>(
        String.raw`
import sys, json, pydicom
from pydicom.dataelem import RawDataElement
from pydicom.tag import Tag
ds = pydicom.dcmread(sys.argv[1])
v = sys.argv[3].encode().ljust(len(sys.argv[3]) + len(sys.argv[3]) % 2)
ds[0x00280008] = RawDataElement(Tag(0x00280008), 'IS', len(v), v, 0, False, True)
ds.save_as(sys.argv[2])
print(json.dumps(1))`,
        [TWO_FRAMES, out, value],
      );
      const r = await run([out]);
      expect(r.series.filter((s) => isUsable(s))).toEqual([]);
      expect(said(r)).toContain(
        `Number of Frames (0028,0008) as ${Number(value)}, which is no count of images`,
      );
    });
  }
});

describe('a slice whose header cannot be a grey-scale scan', () => {
  it('refuses Photometric Interpretation "XYZ", which was called fit and meshed', async () => {
    const dir = craniumWith('photometric', 'x00280004', 'XYZ');
    const s = (await run([dir])).series[0]!;
    expect(isUsable(s)).toBe(false);
    expect(s.problems.find((p) => p.code === 'pixel-format')?.message).toMatch(
      /^The images say their pixels are "XYZ" \(Photometric Interpretation\), not the grey values \(MONOCHROME1 or MONOCHROME2\) of a scan/,
    );
    // MONOCHROME1 differs in display alone: its slices are read as MONOCHROME2's.
    const mono1 = (await run([craniumWith('monochrome1', 'x00280004', 'MONOCHROME1')])).series[0]!;
    expect(mono1.problems.filter((p) => p.code === 'pixel-format')).toEqual([]);
  });

  it('refuses a Pixel Spacing of three values, as one of one value is', async () => {
    const dir = craniumWith('spacing3', 'x00280030', '0.9570312\\0.957\\1');
    const s = (await run([dir])).series[0]!;
    expect(isUsable(s)).toBe(false);
    expect(s.fitness.reasons).toContainEqual(
      expect.stringMatching(
        /^Pixel Spacing \(0028,0030\) holds "0\.9570312\\0\.957\\1" in slice050\.dcm, which is not two numbers/,
      ),
    );
  });
});
