import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import yazl from 'yazl';
import {
  PHANTOM_DIR,
  patchElement,
  phantomFiles,
  pydicomMissing,
  python,
  sameLength,
} from '../../scans/scans.test-support.js';
import type { ProcessorProgress } from '../processor.js';
import { createSegmentationProcessor } from './index.js';

// The variants are built with pydicom (Debian's python3-pydicom): said in the test's name when missing.
const noPydicom = pydicomMissing();
const skipped = noPydicom ? ` (skipped: ${noPydicom})` : '';

/** A real human head CT in Hounsfield units, slices 1.5 mm apart (MANIFEST.md); the skull phantom is the other fixture. */
const SERIES = resolve('../shared/fixtures/dicom/ct-human-cranium-teeth');

let dir: string;
const processor = createSegmentationProcessor({ workers: 2 });

async function zipOf(files: string[], path: string, root = SERIES): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const f of files) zip.addFile(f, f.slice(root.length + 1));
  zip.end();
  const out = createWriteStream(path);
  zip.outputStream.pipe(out);
  await once(out, 'close');
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-refusals-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a structure refused in words after the volume is read, before any work on it', () => {
  it('refuses all_teeth on every fifth slice of the real head CT (7.5 mm apart), and makes only the skull', async () => {
    // Every fifth slice, each stating a thickness of 7.5 mm, as a thick-slice scan does.
    const thick = join(dir, 'thick');
    await mkdir(thick);
    const files = (await readdir(SERIES)).sort().filter((_, i) => i % 5 === 0);
    for (const f of files) {
      const bytes = await readFile(join(SERIES, f));
      patchElement(bytes, 'x00180050', sameLength(bytes, 'x00180050', '7.5'));
      await writeFile(join(thick, f), bytes);
    }
    const zipPath = await zipOf(
      files.map((f) => join(thick, f)),
      join(dir, 'thick.zip'),
      thick,
    );
    const stages: string[] = [];
    const workDir = join(dir, 'job');
    const result = await processor.process(
      {
        jobId: 'thick',
        inputs: [{ name: 'cbct', extension: '.zip', path: zipPath }],
        meshes: [
          { extension: '.stl', structures: ['skull'] },
          { extension: '.stl', structures: ['all_teeth'] },
        ],
        options: {},
        workDir,
      },
      (p: ProcessorProgress) => stages.push(p.stage),
      new AbortController().signal,
    );
    expect(result.meshes[0]?.path).toBe(join(workDir, 'mesh-1-skull.stl'));
    expect(existsSync(join(workDir, 'mesh-1-skull.stl'))).toBe(true);
    expect(result.meshes[1]?.refused).toMatch(
      /The slices are 7\.5 mm apart in this scan; teeth, .* need 2\.5 mm or less/,
    );
    // Nothing was done for the teeth: no stage names them, no file of theirs.
    expect(stages.filter((s) => /teeth/.test(s))).toEqual([]);
    expect(existsSync(join(workDir, 'mesh-2-all_teeth.stl'))).toBe(false);
  }, 120_000);

  it.skipIf(noPydicom !== null)(
    `refuses skull where the bone is a checkerboard of like pieces, before extracting any surface${skipped}`,
    async () => {
      // A review: a checkerboard of bone and air in the real head's files came out as a "skull" of
      // millions of triangles. Here squares of 16 pixels, the same in every slice (one that changes along
      // the stack is refused first, as two scans meeting: slice-likeness.ts).
      const checkers = join(dir, 'checkers');
      await mkdir(checkers);
      python(
        String.raw`
import sys, os, json, glob, numpy as np, pydicom
src, out = sys.argv[1], sys.argv[2]
for k, f in enumerate(sorted(glob.glob(src + '/*.dcm'))):
    ds = pydicom.dcmread(f)
    r, c = ds.Rows, ds.Columns
    jj, ii = np.indices((r, c))
    hu = np.where(((ii // 16) + (jj // 16)) % 2 == 1, 1500.0, -1000.0)
    hu += np.random.default_rng(k).normal(0, 25, hu.shape)
    stored = np.rint((hu - float(ds.RescaleIntercept)) / float(ds.RescaleSlope)).astype(ds.pixel_array.dtype)
    ds.PixelData = stored.tobytes()
    ds.save_as(os.path.join(out, os.path.basename(f)))
print(json.dumps(True))`,
        [SERIES, checkers],
      );
      const files = (await readdir(checkers)).sort().map((f) => join(checkers, f));
      const zipPath = await zipOf(files, join(dir, 'checkers.zip'), checkers);
      const stages: string[] = [];
      const workDir = join(dir, 'job-checkers');
      const result = await processor
        .process(
          {
            jobId: 'checkers',
            inputs: [{ name: 'cbct', extension: '.zip', path: zipPath }],
            meshes: [{ extension: '.stl', structures: ['skull'] }],
            options: {},
            workDir,
          },
          (p: ProcessorProgress) => stages.push(p.stage),
          new AbortController().signal,
        )
        .catch((e: unknown) => e as Error);
      const said = 'meshes' in result ? (result.meshes[0]?.refused ?? '') : result.message;
      expect(said).toMatch(
        /The voxels dense as bone in this scan form \d+ separate pieces of like size, the largest only \d+\.\d % of them: .* not a skull, and no bone mesh was made/,
      );
      expect(stages.filter((s) => /extracting/.test(s))).toEqual([]);
    },
    120_000,
  );

  it('refuses soft_tissue on the skull phantom in words, and the job in those words when it is all that is asked', async () => {
    const zipPath = await zipOf(phantomFiles(), join(dir, 'phantom.zip'), PHANTOM_DIR);
    const stages: string[] = [];
    const workDir = join(dir, 'phantom-job');
    const job = processor.process(
      {
        jobId: 'phantom',
        inputs: [{ name: 'cbct', extension: '.zip', path: zipPath }],
        meshes: [{ extension: '.stl', structures: ['soft_tissue'] }],
        options: {},
        workDir,
      },
      (p: ProcessorProgress) => stages.push(p.stage),
      new AbortController().signal,
    );
    await expect(job).rejects.toThrow(/is bone over \d+ % of it: there is no soft tissue over the bone/);
    expect(stages.some((s) => /extracting|writing/.test(s))).toBe(false);
    expect(existsSync(join(workDir, 'mesh-1-soft_tissue.stl'))).toBe(false);
  }, 120_000);
});
