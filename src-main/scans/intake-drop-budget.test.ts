// Each archive may unpack to a little whatever its ratio (one blank slice deflates a thousandfold), so
// many small archives in one drop, or archives in an archive, multiplied that allowance: 40 gzipped
// files of 65 KB wrote 2.4 GB, a 17.5 KB zip of zips 2.9 GB (a review). The drop has one budget.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { intake } from './intake.js';
import { tempFolders } from './scans.test-support.js';
import { dicomThenZeros, STRICT, writeZip } from './zip.test-support.js';

const { fresh } = tempFolders('s2m-drop-budget-');

function bytesUnder(dirs: string[]): number {
  return dirs
    .flatMap((d) => (readdirSync(d, { recursive: true }) as string[]).map((f) => statSync(join(d, f))))
    .filter((s) => s.isFile())
    .reduce((n, s) => n + s.size, 0);
}

const OVER_DROP =
  /was not opened: the archives of this drop unpack to more than 20 times their size together/;

describe("a drop's archives, together", () => {
  it('unpack within one budget: a folder of small gzipped bombs stops once the drop has had its share', async () => {
    const dir = fresh('gz');
    // Each within the 1 MB any archive may unpack to; five of them are not.
    for (let i = 0; i < 5; i++) writeFileSync(join(dir, `s${i}.dcm.gz`), gzipSync(dicomThenZeros(9e5)));
    const work = fresh('work');
    const out = await intake([dir], { tempDir: work, limits: STRICT, workers: false });
    const refused = out.result.problems.filter((p) => OVER_DROP.test(p.message));
    expect(refused).toHaveLength(4);
    expect(bytesUnder(out.tempDirs)).toBeLessThanOrEqual(1e6);
  });

  it('count archives inside an archive against the archive the user dropped', async () => {
    const dir = fresh('nested');
    const inner = await Promise.all(
      Array.from({ length: 5 }, async (_, i) => {
        const path = join(dir, `inner${i}.zip`);
        await writeZip(path, [{ name: 'slice.dcm', data: dicomThenZeros(9e5) }]);
        return { name: `inner${i}.zip`, data: readFileSync(path) };
      }),
    );
    const outer = join(fresh('outer'), 'outer.zip');
    await writeZip(outer, inner);
    const out = await intake([outer], { tempDir: fresh('work'), limits: STRICT, workers: false });
    expect(out.result.problems.filter((p) => OVER_DROP.test(p.message))).toHaveLength(4);
    expect(bytesUnder(out.tempDirs)).toBeLessThanOrEqual(1e6 + 5 * 1e4);
  });
});
