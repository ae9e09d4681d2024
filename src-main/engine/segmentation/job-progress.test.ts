import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProcessorProgress } from '../processor.js';
import { createSegmentationProcessor } from './index.js';
import { madeMeshes } from './made-meshes.test-support.js';
import { MESH_STEPS } from './mesh-surface.js';

// The head phantom's skull is 1.6 million extracted triangles: simplified in slabs, one per mesh
// worker, as a big CBCT's is (a review saw such a job sit at one percentage for 45 s there).
const SERIES = resolve('../shared/fixtures/dicom/ct-head-phantom-1mm');
const WORKERS = 4;

let dir: string;
let zipPath: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-progress-'));
  zipPath = join(dir, 'series.zip');
  const zip = new yazl.ZipFile();
  // Stored, not deflated, as the app packages a scan for the local engine (jobs/loopback-tuning.ts).
  for (const f of (await readdir(SERIES)).sort())
    zip.addFile(join(SERIES, f), `series/${f}`, { compress: false });
  zip.end();
  const out = createWriteStream(zipPath);
  zip.outputStream.pipe(out);
  await once(out, 'close');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('progress of a local job', () => {
  it('moves through every slab of the simplification, and through extraction and smoothing, never back', async () => {
    const progress: ProcessorProgress[] = [];
    const result = await createSegmentationProcessor({ workers: WORKERS }).process(
      {
        jobId: 'progress',
        inputs: [{ name: 'cbct', extension: '.zip', path: zipPath }],
        meshes: [{ extension: '.stl', structures: ['skull'] }],
        options: {},
        workDir: join(dir, 'work'),
      },
      (p) => progress.push(p),
      new AbortController().signal,
    );
    expect(madeMeshes(result)).toHaveLength(1);
    for (let i = 1; i < progress.length; i++)
      expect(progress[i]!.fraction).toBeGreaterThanOrEqual(progress[i - 1]!.fraction);
    expect(progress.at(-1)).toEqual({ fraction: 1, stage: 'done' });

    // The one mesh has the job's share from 0.4 to 1; its simplification its part of that.
    const inMesh = (f: number): number => 0.4 + 0.6 * f;
    const simplifying = progress.filter((p) => /simplif/.test(p.stage));
    const stages = simplifying.map((p) => p.stage);
    // Each slab's end is told as its worker hands it back (a heartbeat may come between).
    const slabs = stages.filter((s) => /parts done$/.test(s));
    expect(slabs).toEqual(
      Array.from(
        { length: WORKERS + 1 },
        (_, k) => `simplifying the surface of skull: ${k} of ${WORKERS} parts done`,
      ),
    );
    expect(stages.at(-1)).toBe('checking that the simplified surface of skull is closed');
    // Several distinct steps, told once each (heartbeats aside: their seconds are the machine's).
    const steps = stages.filter((s) => !/ so far\)$/.test(s));
    expect(new Set(steps).size).toBe(steps.length);
    expect(steps.length).toBeGreaterThanOrEqual(WORKERS + 2);
    for (let i = 1; i < simplifying.length; i++)
      expect(simplifying[i]!.fraction).toBeGreaterThan(simplifying[i - 1]!.fraction);
    for (const p of simplifying) {
      expect(p.fraction).toBeGreaterThanOrEqual(inMesh(MESH_STEPS.simplify));
      expect(p.fraction).toBeLessThan(inMesh(MESH_STEPS.write));
    }

    // The steps before it say where they are too.
    const extracting = progress.filter((p) => /passes over the scan done$/.test(p.stage));
    expect(extracting.map((p) => p.stage.replace(/^.*: /, ''))).toEqual(
      ['1 of 3', '2 of 3', '3 of 3'].map((s) => `${s} passes over the scan done`),
    );
    const smoothing = progress.filter((p) =>
      /^smoothing the surface of skull: \d+ of \d+ passes done$/.test(p.stage),
    );
    expect(smoothing.length).toBeGreaterThanOrEqual(3);
    const reading = progress.filter((p) => /(slices read|parts of the volume copied)$/.test(p.stage));
    expect(reading.length).toBeGreaterThanOrEqual(3);
    for (const steps of [extracting, smoothing, reading])
      for (let i = 1; i < steps.length; i++)
        expect(steps[i]!.fraction).toBeGreaterThan(steps[i - 1]!.fraction);
  }, 300_000);
});
