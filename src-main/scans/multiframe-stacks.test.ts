import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SeriesSummary } from '../../src-shared/scans.js';
import { craniumFrames, enhancedCt, type CtFrame } from './enhanced-ct.test-support.js';
import { intake } from './intake.js';
import { tempFolders } from './scans.test-support.js';

const { fresh } = tempFolders('s2m-stacks-');

/** The one series intake finds in `files` (name and bytes), written to a folder of their own. */
async function seriesOf(files: [string, Buffer][]): Promise<SeriesSummary> {
  const dir = fresh('drop');
  for (const [name, bytes] of files) writeFileSync(join(dir, name), bytes);
  const r = (await intake([dir], { tempDir: fresh('work') })).result;
  expect(r.series).toHaveLength(1);
  return r.series[0]!;
}

const TWO_STACKS =
  'The images belong to 2 different stacks (Stack IDs 1 and 2): separate reconstructions of the scan, such as another plane, slice thickness or filter, which do not form one volume together. Export one stack (one reconstruction) on its own and add it again.';

/** The cranium's slices 0 to 30 as stack 1, and a second reconstruction of them 0.5 mm above as stack 2. */
function interleaved(): CtFrame[] {
  const one = craniumFrames(0, 30, '1');
  const two = craniumFrames(0, 30, '2').map((f) => ({
    ...f,
    position: [f.position![0], f.position![1], f.position![2] + 0.5] as [number, number, number],
  }));
  return [...one, ...two];
}

describe('frames of more than one stack', () => {
  it('one stack, its frames named by a Stack ID, is fit', async () => {
    const s = await seriesOf([['one.dcm', enhancedCt(craniumFrames(0, 30, '1'))]]);
    expect(s.fitness).toEqual({ fit: true, reasons: [] });
  });

  it('are refused in one Enhanced file, with that reason alone (not a 0.5 mm volume)', async () => {
    const s = await seriesOf([['two.dcm', enhancedCt(interleaved())]]);
    expect(s.fitness).toEqual({ fit: false, reasons: [TWO_STACKS] });
    expect(s.problems.filter((p) => p.severity === 'error').map((p) => p.code)).toEqual(['several-stacks']);
    expect(s.previewable).toBe(false);
  });

  it('are refused in a series of single-frame Enhanced files', async () => {
    const files = interleaved().map((f, i): [string, Buffer] => [
      `f${i}.dcm`,
      enhancedCt([f], { instance: i + 1 }),
    ]);
    const s = await seriesOf(files);
    expect(s.slices).toBe(60);
    expect(s.fitness).toEqual({ fit: false, reasons: [TWO_STACKS] });
  });

  it('an orthogonal second stack is still refused as mixed orientations too', async () => {
    const coronal = craniumFrames(0, 20, '2').map((f, k) => ({
      ...f,
      orientation: [1, 0, 0, 0, 0, -1],
      position: [0, 60 + 8 * k, 160.5] as [number, number, number],
    }));
    const s = await seriesOf([['orth.dcm', enhancedCt([...craniumFrames(0, 40, '1'), ...coronal])]]);
    expect(s.fitness.fit).toBe(false);
    expect(s.fitness.reasons).toEqual([
      'The images are not all oriented the same way, so they do not form one volume.',
      TWO_STACKS,
    ]);
  });
});
