import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SeriesSummary } from '../../src-shared/scans.js';
import { craniumFrames, enhancedCt, type CtFrame, type EnhancedOptions } from './enhanced-ct.test-support.js';
import { intake } from './intake.js';
import { tempFolders } from './scans.test-support.js';

const { fresh } = tempFolders('s2m-positions-');

async function seriesOf(frames: CtFrame[], o: EnhancedOptions = {}): Promise<SeriesSummary> {
  const file = join(fresh('drop'), 'scan.dcm');
  writeFileSync(file, enhancedCt(frames, o));
  const r = (await intake([file], { tempDir: fresh('work') })).result;
  expect(r.series).toHaveLength(1);
  return r.series[0]!;
}

const unplaced = (which: string): string =>
  `${which} not give their own position in the patient (a Plane Position for each frame), so the stack cannot be placed from the true slice positions: a model could be shifted or mirrored. Export the scan again so that every frame records its position (or as one file per slice).`;

/** 40 of the cranium's slices (58.5 mm), frames 10 and 30 without their Plane Position. */
function twoUnplaced(): CtFrame[] {
  return craniumFrames(0, 40).map((f, k) => {
    if (k !== 10 && k !== 30) return f;
    const { position: _gone, ...rest } = f;
    return rest;
  });
}

const errorCodes = (s: SeriesSummary): string[] =>
  s.problems.filter((p) => p.severity === 'error').map((p) => p.code);

describe('multi-frame frames without a position of their own', () => {
  it('are refused for that, not as slices at one place, when the file has a top-level position', async () => {
    const frames = twoUnplaced();
    // The first frame's place, as converters write it, and the middle one's, as some do.
    for (const top of [frames[0]!.position!, frames[20]!.position!]) {
      const s = await seriesOf(frames, { topLevelPosition: top });
      expect(s.fitness).toEqual({
        fit: false,
        reasons: [unplaced('2 of the 40 frames of this multi-frame file do')],
      });
      expect(errorCodes(s)).toEqual([]);
    }
  });

  it('are refused for that, not as a scan 0 mm deep, when no frame has a position', async () => {
    const frames = craniumFrames(0, 40).map(({ position: _gone, ...rest }) => rest);
    const s = await seriesOf(frames, { topLevelPosition: [0, 0, 0], spacingBetweenSlices: 1.5 });
    expect(s.fitness).toEqual({ fit: false, reasons: [unplaced('The frames of this multi-frame file do')] });
    expect(errorCodes(s)).toEqual([]);
  });

  it('are refused for that in a legacy multi-frame CT, which gives the first frame a position only', async () => {
    const s = await seriesOf(craniumFrames(0, 40), { legacy: true, spacingBetweenSlices: 1.5 });
    expect(s.fitness).toEqual({
      fit: false,
      reasons: [unplaced('39 of the 40 frames of this multi-frame file do')],
    });
  });

  it('a file whose every frame has its position is fit, whatever its top-level position says', async () => {
    const s = await seriesOf(craniumFrames(0, 40), { topLevelPosition: [0, 0, 0] });
    expect(s.fitness).toEqual({ fit: true, reasons: [] });
  });
});
