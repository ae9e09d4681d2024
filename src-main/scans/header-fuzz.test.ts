import { describe, expect, it } from 'vitest';
import { classifyBytes } from './classify-file.js';
import { fuzzSources, fuzzVerdict, mutate, prng, runFuzz, MUTATIONS } from './header-fuzz.test-support.js';
import { FIXTURES } from './scans.test-support.js';

const sources = fuzzSources(FIXTURES);

describe('header fuzzing (bounded: 2,000 mutated headers of the real fixtures)', () => {
  it('classifies every mutated header without a crash, each with a header or a reason in words', () => {
    let returned = 0;
    // The classifier returning for each file is what rules out a hang (a hang would time the test out).
    const tally = runFuzz(sources, 2000, 20261124, () => returned++);
    expect(returned).toBe(2000);
    expect(tally.firstFailures).toEqual([]);
    expect(tally.crashes).toBe(0);
    expect(tally.rejected).toBe(0);
    expect(Object.values(tally.byOutcome).reduce((a, b) => a + b, 0)).toBe(2000);
    // Not a degenerate run: every kind of damage was tried, and all three outcomes occurred.
    for (const m of MUTATIONS) expect(tally.byMutation[m] ?? 0).toBeGreaterThan(100);
    expect(tally.byOutcome.image).toBeGreaterThan(100);
    expect(tally.byOutcome['problem:corrupt-file']).toBeGreaterThan(100);
    expect(tally.byOutcome.skip).toBeGreaterThan(10);
  });

  it('refuses absurd frame counts by what the file holds, before allocating for them', () => {
    const rand = prng(3);
    const phantom = sources.find((s) => s.name.startsWith('ct-head-phantom-1mm/'))!;
    const twoFrames = sources.find((s) => s.name.endsWith('enhanced-ct-nema-ct0012-2frames.dcm'))!;
    const rle = sources.find((s) => s.name.endsWith('enhanced-ct-nema-ct0012-rle.dcm'))!;
    const said = (src: typeof phantom, kind: (typeof MUTATIONS)[number]): string => {
      const r = classifyBytes(mutate(src, kind, rand), { path: 'x.dcm', display: 'x.dcm' });
      expect(fuzzVerdict(r)).toBeNull();
      return r.kind === 'problem' ? r.problem.message : `not refused: ${r.kind}`;
    };
    expect(said(phantom, 'frames-3000000')).toBe(
      'x.dcm is a damaged or incomplete DICOM file and was left out (its header says it holds 3,000,000 images, but it has room for only one).',
    );
    expect(said(phantom, 'frames-99999999999')).toMatch(
      /holds 99,999,999,999 images, but it has room for only one/,
    );
    expect(said(twoFrames, 'frames-3000000')).toMatch(
      /holds 3,000,000 images, but it has room for at most 2\)/,
    );
    // Compressed frames: each needs at least an item header, so the file size bounds the count.
    expect(said(rle, 'frames-3000000')).toMatch(
      /holds 3,000,000 images, but it has room for at most [\d,]+\)/,
    );
  });
});
