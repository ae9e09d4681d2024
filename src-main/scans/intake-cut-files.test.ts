// Files cut off so early that they no longer say which series they are of: a slice cut after its
// "DICM" mark, an empty .dcm, a zip entry that unpacks to more than its recorded size. Each was left
// out of its series in silence (skipped as "DICOM without image data", or an archive's damaged entry
// said only for the drop) and a model made without it; the zip entry crashed the process.
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IntakeResult } from '../../src-shared/scans.js';
import { intake } from './intake.js';
import { FIXTURES, tempFolders } from './scans.test-support.js';
import { writeZip } from './zip.test-support.js';

const CRANIUM = join(FIXTURES, 'ct-human-cranium-teeth');
const slices = readdirSync(CRANIUM).sort();
const { fresh } = tempFolders('s2m-intake-cut-');

async function run(paths: string[]): Promise<IntakeResult> {
  return (await intake(paths, { tempDir: fresh('work') })).result;
}

/** The real head in a folder of its own, slice `cut` replaced by what `bytes` makes of it. */
function headWith(cut: string, bytes: (original: Buffer) => Buffer): string {
  const dir = fresh('head');
  for (const f of slices) {
    if (f === cut) writeFileSync(join(dir, f), bytes(readFileSync(join(CRANIUM, f))));
    else copyFileSync(join(CRANIUM, f), join(dir, f));
  }
  return dir;
}

describe('a file cut off before it says its series', () => {
  it('makes the series beside it not usable, naming the file: cut after "DICM", or empty', async () => {
    for (const [bytes, why] of [
      [
        (b: Buffer) => b.subarray(0, 132),
        'nothing in its 132 bytes says what it is: it is cut off, or not an image',
      ],
      [() => Buffer.alloc(0), 'it is empty'],
      [(b: Buffer) => b.subarray(0, 100), 'it ends after its first 100 bytes'],
    ] as const) {
      const r = await run([headWith('slice001.dcm', bytes)]);
      expect(r.series).toHaveLength(1);
      const [s] = r.series;
      expect(s!.fitness.fit).toBe(false);
      expect(s!.problems.find((p) => p.code === 'damaged-files')?.message).toBe(
        `1 file beside this series' files is damaged, too much to tell which series it is of: slice001.dcm (${why}). The scan is not complete without it; export the series again, or, if it is not of it, take it out of the folder and drop it again.`,
      );
    }
  });

  it('leaves the series usable beside a file that is not DICOM, or a DICOM file of another kind', async () => {
    const dir = headWith('slice001.dcm', (b) => b);
    writeFileSync(join(dir, 'notes.txt'), 'exported 2026-11-30');
    copyFileSync(join(FIXTURES, 'bad', 'rtplan-no-pixeldata.dcm'), join(dir, 'plan.dcm'));
    // Hidden files named like slices: a lock file, a macOS "._" sidecar (a review).
    writeFileSync(join(dir, '.lock.dcm'), '');
    writeFileSync(join(dir, '._slice001.dcm'), Buffer.alloc(82, 1));
    const [s] = (await run([dir])).series;
    expect(s!.fitness).toEqual({ fit: true, reasons: [] });
  });
});

describe('a zip entry that unpacks to more than its recorded size', () => {
  it('is said by the series beside it in the archive, without crashing, whichever entry it is', async () => {
    for (const victim of [0, slices.length - 1]) {
      const zipPath = join(fresh('zip'), 'head.zip');
      // Deflated entries: the size recorded in the central directory is what the unpacking checks.
      await writeZip(
        zipPath,
        slices.map((f) => ({ name: `head/${f}`, data: readFileSync(join(CRANIUM, f)) })),
      );
      const zip = await readFile(zipPath);
      const name = Buffer.from(`head/${slices[victim]!}`);
      const central = Buffer.from([0x50, 0x4b, 0x01, 0x02]);
      let at = zip.indexOf(central);
      while (!zip.subarray(at + 46, at + 46 + name.length).equals(name)) at = zip.indexOf(central, at + 4);
      zip.writeUInt32LE(1000, at + 24);
      await writeFile(zipPath, zip);

      const r = await run([zipPath]);
      expect(r.series).toHaveLength(1);
      expect(r.series[0]!.fitness.fit).toBe(false);
      expect(r.series[0]!.problems.find((p) => p.code === 'damaged-files')?.message).toMatch(
        new RegExp(
          `^1 file beside this series' files is damaged, too much to tell which series it is of: ${slices[victim]}\\.`,
        ),
      );
    }
  });
});
