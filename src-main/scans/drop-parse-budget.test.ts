// The files of one drop that are read whole (deflated or big-endian) share one budget: many small
// crafted ones multiplied each file's own bounds (20 files of a million empty items: 40 s, 1.2 GB).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isUsable } from '../../src-shared/series-usable.js';
import { intake } from './intake.js';
import { describe, expect, it } from 'vitest';
import { classifyFile, type Classified } from './classify-file.js';
import { newDropBudget, withDropBudget } from './drop-parse-budget.js';
import { FIXTURES } from './scans.test-support.js';

const kinds = (rs: Classified[]): string[] =>
  rs.map((r) => (r.kind === 'problem' ? `problem: ${r.problem.message}` : r.kind));

function classifyAll(file: string, times: number, budget: Int32Array): string[] {
  const item = { path: join(FIXTURES, 'transfer-syntax', file), display: file };
  return kinds(withDropBudget(budget, () => Array.from({ length: times }, () => classifyFile(item))));
}

describe("a drop's budget for files read whole", () => {
  it('leaves out the deflated files past what the drop may inflate, in words', () => {
    // Each inflates to about 257 KiB (a 512 x 512 image).
    const out = classifyAll(
      'deflated-explicit-le.dcm',
      4,
      newDropBudget({ inflatedKib: 600, elements: 1e6 }),
    );
    expect(out.slice(0, 2)).toEqual(['image', 'image']);
    for (const r of out.slice(2))
      expect(r).toMatch(/^problem: .*the deflated files of this drop unpack to more than 600 KiB together/);
  });

  it('leaves out the big-endian files past the elements the drop may parse', () => {
    const out = classifyAll('ct-512-explicit-be.dcm', 3, newDropBudget({ inflatedKib: 1e6, elements: 400 }));
    // Each holds 255 elements.
    expect(out[0]).toBe('image');
    for (const r of out.slice(1)) expect(r).toMatch(/^problem: .*hold more than 400 data elements together/);
  });

  it('past it, says so once for the drop and offers no series, which may lack the files left unread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 's2m-drop-read-'));
    try {
      for (let i = 0; i < 4; i++)
        copyFileSync(join(FIXTURES, 'transfer-syntax', 'deflated-explicit-le.dcm'), join(dir, `f${i}.dcm`));
      const out = await intake([dir], {
        tempDir: join(dir, 'work'),
        workers: false,
        readBudget: { inflatedKib: 600, elements: 1e6 },
      });
      const unread = out.result.problems.filter((p) => p.code === 'drop-over-budget');
      expect(unread.map((p) => p.message)).toEqual([
        expect.stringMatching(
          /^2 files of what you dropped were not read: the deflated files .* Drop fewer series at a time\.$/,
        ),
      ]);
      expect(out.result.series.length).toBeGreaterThan(0);
      for (const s of out.result.series) expect(isUsable(s)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('costs nothing outside a drop: a scan read whole to be sent is not bounded by one', () => {
    const item = { path: join(FIXTURES, 'transfer-syntax', 'deflated-explicit-le.dcm'), display: 'f' };
    expect(kinds(Array.from({ length: 3 }, () => classifyFile(item)))).toEqual(['image', 'image', 'image']);
  });
});
