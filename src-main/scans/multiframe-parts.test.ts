import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IntakeResult } from '../../src-shared/scans.js';
import { isUsable } from '../../src-shared/series-usable.js';
import { craniumFrames, enhancedCt } from './enhanced-ct.test-support.js';
import { intake } from './intake.js';
import { tempFolders } from './scans.test-support.js';

const { fresh } = tempFolders('s2m-parts-');

/** What intake finds in `files` (name and bytes), written to a folder of their own. */
async function intakeOf(files: [string, Buffer][]): Promise<IntakeResult> {
  const dir = fresh('drop');
  for (const [name, bytes] of files) writeFileSync(join(dir, name), bytes);
  return (await intake([dir], { tempDir: fresh('work') })).result;
}

const codes = (r: IntakeResult): string[][] => r.series.map((s) => s.problems.map((p) => p.code));

// The real cranium's slices 0-54 and 54-108, each an Enhanced CT file: one scan split in two.
const lower = (o: object = {}): Buffer => enhancedCt(craniumFrames(0, 54), { instance: 1, ...o });
const upper = (o: object = {}): Buffer => enhancedCt(craniumFrames(54, 108), { instance: 2, ...o });

describe('a scan stored across several multi-frame files', () => {
  it('a concatenation is seen as one image and refused in words, not made into two half models', async () => {
    // Before, each part was a usable series of its own: two jobs, two skulls cut flat where the
    // files end, the 1.5 mm between them in neither.
    const uid = '1.2.826.0.1.3680043.8.498.77';
    const r = await intakeOf([
      ['part1.dcm', lower({ concatenation: { uid, number: 1, total: 2 } })],
      ['part2.dcm', upper({ concatenation: { uid, number: 2, total: 2 } })],
    ]);
    expect(r.series).toHaveLength(1);
    const s = r.series[0]!;
    expect(s.slices).toBe(108);
    expect(isUsable(s)).toBe(false);
    expect(s.problems.find((p) => p.code === 'concatenation')).toMatchObject({
      severity: 'error',
      message:
        'This image is split across several multi-frame files (a DICOM concatenation; 2 files). scan2mesh sends a multi-frame scan as one file and does not join parts, and a model of one part would end in a flat face where its file ends. Export the scan again as one multi-frame file or as one file per slice.',
    });
  });

  it('names the parts that are missing, and refuses one part alone', async () => {
    const uid = '1.2.826.0.1.3680043.8.498.78';
    const one = await intakeOf([['part2.dcm', upper({ concatenation: { uid, number: 2, total: 3 } })]]);
    expect(one.series[0]!.problems.find((p) => p.code === 'concatenation')?.message).toMatch(
      /^This image is split across several multi-frame files \(a DICOM concatenation; one file here\)\. Parts 1, 3 of 3 are not among the files\. /,
    );
    const noTotal = await intakeOf([['part1.dcm', lower({ concatenation: { uid, number: 1 } })]]);
    expect(noTotal.series[0]!.problems.find((p) => p.code === 'concatenation')?.message).toMatch(
      /one file here\)\. The other parts are not among the files\. /,
    );
    expect(isUsable(noTotal.series[0]!)).toBe(false);
    // A concatenation of one part (its total says 1) is a whole image.
    const whole = await intakeOf([['all.dcm', lower({ concatenation: { uid, number: 1, total: 1 } })]]);
    expect(codes(whole)).toEqual([[]]);
    expect(isUsable(whole.series[0]!)).toBe(true);
  });

  it('multi-frame files of one series not marked as parts: each its own volume, with a warning', async () => {
    const r = await intakeOf([
      ['lower.dcm', lower()],
      ['upper.dcm', upper()],
    ]);
    expect(r.series).toHaveLength(2);
    for (const s of r.series) {
      expect(s.problems).toEqual([
        {
          severity: 'warning',
          code: 'split-series',
          message:
            'This series has 2 multi-frame files; each is shown, and made into a model, on its own. If they are parts of one scan, each model shows only its part and ends in a flat face where its file ends. Export the scan again as one multi-frame file or as one file per slice.',
        },
      ]);
    }
    // One multi-frame file alone: nothing to say.
    expect(codes(await intakeOf([['lower.dcm', lower()]]))).toEqual([[]]);
  });
});
