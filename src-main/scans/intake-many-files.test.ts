import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { intake } from './intake.js';
import { linkOrCopy, phantomFiles } from './scans.test-support.js';

const root = mkdtempSync(join(tmpdir(), 's2m-many-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('handles a folder of ten thousand files', async () => {
  const dir = join(root, 'drop');
  mkdirSync(dir);
  // The 140 real slices (hard links, to spare 74 MB of copies) among 9,860 files that are not DICOM.
  for (const f of phantomFiles()) linkOrCopy(f, join(dir, `${basename(f)}.dcm`));
  const junk = Buffer.alloc(300, 0x41);
  for (let i = 0; i < 9860; i++) writeFileSync(join(dir, `note-${i}.txt`), junk);
  // How long this takes is measured by `npm run bench -- dicom-headers`, not asserted here.
  const { result } = await intake([dir], { tempDir: join(root, 'work') });
  expect(result.series).toHaveLength(1);
  expect(result.series[0]!.slices).toBe(140);
  expect(result.skipped).toHaveLength(9860);
  expect(result.skipped[0]!.reason).toBe('a text file, not DICOM');
});
