import { madeMeshes } from './made-meshes.test-support.js';
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import yazl from 'yazl';
import { readVolume } from '../../scans/volume-reader.js';
import type { ProcessorJob, ProcessorProgress } from '../processor.js';
import { createSegmentationProcessor } from './index.js';
import { startJobWorkerEarly, takeEarlyJobWorker } from './job-worker-start.js';
import { meshBounds } from './mesh-checks.js';
import { edgeReport, signedVolume } from './mesh-checks.test-support.js';
import { piecesOf, readStl } from './stl.test-support.js';

const SERIES = resolve('../shared/fixtures/dicom/ct-head-phantom-1mm');
/** A smaller real series (256 x 256 x 108), for the tests that only need some surface. */
const CRANIUM = resolve('../shared/fixtures/dicom/ct-human-cranium-teeth');

let dir: string;
let zipPath: string;
let craniumZip: string;
let files: string[];

async function zipSeries(files: string[], from: string, to: string): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const f of files) zip.addFile(f, `series/${f.slice(from.length + 1)}`);
  zip.end();
  const out = createWriteStream(to);
  zip.outputStream.pipe(out);
  await once(out, 'close');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-seg-'));
  files = (await readdir(SERIES)).sort().map((f) => join(SERIES, f));
  zipPath = join(dir, 'series.zip');
  await zipSeries(files, SERIES, zipPath);
  craniumZip = join(dir, 'cranium.zip');
  const cranium = (await readdir(CRANIUM)).sort().map((f) => join(CRANIUM, f));
  await zipSeries(cranium, CRANIUM, craniumZip);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const job = (workDir: string, over: Partial<ProcessorJob> = {}): ProcessorJob => ({
  jobId: 'test-job',
  inputs: [{ name: 'cbct', extension: '.zip', path: zipPath }],
  meshes: [{ extension: '.stl', structures: ['skull'] }],
  options: {},
  workDir,
  ...over,
});

describe('segmentation processor on the head phantom CT', () => {
  it('refuses at validation what it cannot do', () => {
    const p = createSegmentationProcessor();
    expect(
      p.validate({
        inputs: [{ name: 'cbct', extension: '.zip' }],
        meshes: [{ extension: '.stl', structures: ['skull'] }],
      }),
    ).toBeNull();
    expect(
      p.validate({
        inputs: [{ name: 'cbct', extension: '.zip' }],
        meshes: [{ extension: '.stl', structures: ['mandible'] }],
      }),
    ).toMatch(/cannot separate the mandible from the maxilla and the skull.*ask for skull/);
    expect(
      p.validate({
        inputs: [{ name: 'cbct', extension: '.vti' }],
        meshes: [{ extension: '.stl', structures: ['right_nerve'] }],
      }),
    ).toMatch(/\.vti.*right_nerve/s);
  });

  it('turns the zipped series into a closed, edge-manifold skull (bone) STL inside the scan', async () => {
    const workDir = join(dir, 'job1');
    const progress: ProcessorProgress[] = [];
    const result = await createSegmentationProcessor({ workers: 2 }).process(
      job(workDir),
      (p) => progress.push(p),
      new AbortController().signal,
    );
    expect(madeMeshes(result)).toHaveLength(1);
    const out = madeMeshes(result)[0]!;
    expect(out.path.startsWith(workDir)).toBe(true);
    expect(out.note).toMatch(/^skull: all bone as one surface/);
    expect(out.note).toMatch(/simplified within 0\.1 mm/);

    const mesh = await readStl(out.path);
    expect(mesh.indices.length / 3).toBe(out.triangles);
    // The note counts the surfaces of the file it describes.
    const surfaces = Number(/; (\d+) separate surfaces? in the file\.$/.exec(out.note ?? '')?.[1]);
    expect(surfaces).toBe(piecesOf(mesh));
    expect(out.triangles).toBeGreaterThan(20_000);
    expect(edgeReport(mesh.indices, mesh.positions.length / 3)).toMatchObject({
      boundaryEdges: 0,
      nonManifoldEdges: 0,
      inconsistentEdges: 0,
    });
    expect(signedVolume(mesh)).toBeGreaterThan(0);

    // The scan's physical extent: voxel centres plus half a voxel on every side (axis-aligned series).
    const vol = await readVolume(files);
    // The extent below assumes the series' axes are the patient axes, as they are for this phantom.
    expect([vol.rowDir, vol.colDir, vol.sliceDir]).toEqual([
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ]);
    const lo = vol.origin.map((o, k) => o - vol.spacing[k]! / 2);
    const hi = vol.origin.map((o, k) => o + (vol.dims[k]! - 0.5) * vol.spacing[k]!);
    const b = meshBounds(mesh.positions);
    for (let k = 0; k < 3; k++) {
      expect(b.min[k]).toBeGreaterThanOrEqual(lo[k]!);
      expect(b.max[k]).toBeLessThanOrEqual(hi[k]!);
    }
    // The skull fills most of the field of view: the surface spans well over half of it.
    expect(b.max[0] - b.min[0]).toBeGreaterThan(0.5 * (hi[0]! - lo[0]!));

    expect(progress.length).toBeGreaterThan(4);
    for (let i = 1; i < progress.length; i++)
      expect(progress[i]!.fraction).toBeGreaterThanOrEqual(progress[i - 1]!.fraction);
    expect(progress.at(-1)?.fraction).toBe(1);
    console.log(`skull on the phantom: ${out.triangles} triangles; ${out.note}`);
    // About 8 s on an idle two-core machine; the margin is for a machine shared with other suites.
  }, 120_000);

  it('stops when the job is canceled, and reports no progress after that', async () => {
    const ac = new AbortController();
    let afterAbort = 0;
    const p = createSegmentationProcessor({ workers: 1 }).process(
      job(join(dir, 'job2')),
      (pr) => {
        if (ac.signal.aborted) afterAbort++;
        if (pr.fraction >= 0.05) ac.abort();
      },
      ac.signal,
    );
    // Waits on the rejection itself: how long the worker takes to stop depends on the machine's load.
    await expect(p).rejects.toMatchObject({ code: 'canceled' });
    expect(ac.signal.aborted).toBe(true);
    expect(afterAbort).toBe(0);
  });

  it('reads a gzipped .dcm and refuses an MR scan with a clear message', async () => {
    const mr = resolve('../shared/fixtures/dicom/bad/mr-small-gzipped.dcm.gz');
    await expect(
      createSegmentationProcessor({ workers: 1 }).process(
        job(join(dir, 'job3'), { inputs: [{ name: 'cbct', extension: '.dcm.gz', path: mr }] }),
        () => {},
        new AbortController().signal,
      ),
    ).rejects.toMatchObject({ code: 'bad-input', message: expect.stringMatching(/MR/) });
  });

  it('writes one surface as PLY, OBJ and Draco files, on a job worker started before the engine', async () => {
    // The two-frame multi-frame .dcm used here before is now refused as too small to hold a jaw.
    const workDir = join(dir, 'job4');
    // As `scan2mesh submit` does for the local engine, before the engine exists.
    startJobWorkerEarly(1);
    // Only a processor with as many mesh workers takes it.
    expect(takeEarlyJobWorker(2)).toBeUndefined();
    const processor = createSegmentationProcessor({ workers: 1 });
    // As the engine does when it starts: the processor takes the early worker, and the job runs on it.
    processor.prepare?.();
    expect(takeEarlyJobWorker(1)).toBeUndefined();
    const result = await processor.process(
      job(workDir, {
        inputs: [{ name: 'cbct', extension: '.zip', path: craniumZip }],
        meshes: ['.ply', '.obj', '.drc'].map((extension) => ({ extension, structures: ['soft_tissue'] })),
        options: { 'soft-tissue': { decimateMaxError: 0.2, smoothingIterations: 0 } },
      }),
      () => {},
      new AbortController().signal,
    );
    expect(madeMeshes(result).map((m) => m.path.slice(-4))).toEqual(['.ply', '.obj', '.drc']);
    for (const m of madeMeshes(result)) {
      expect(m.triangles).toBeGreaterThan(100);
      expect(m.note).toMatch(/0 smoothing iterations; \d+ triangles \(from \d+, simplified within 0\.2 mm\)/);
    }
    expect(new Set(madeMeshes(result).map((m) => m.triangles)).size).toBe(1);
    // Ready again and let go: dispose ends the waiting worker (the test would otherwise leave it).
    processor.prepare?.();
    await processor.dispose?.();
  });
});
