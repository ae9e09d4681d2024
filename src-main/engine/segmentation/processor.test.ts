import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import yazl from 'yazl';
import { readVolume } from '../../scans/volume-reader.js';
import type { ProcessorJob, ProcessorProgress } from '../processor.js';
import { createSegmentationProcessor } from './index.js';
import { edgeReport, meshBounds, signedVolume } from './mesh-checks.js';

const SERIES = resolve('../shared/fixtures/dicom/ct-head-phantom-1mm');

let dir: string;
let zipPath: string;
let files: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-seg-'));
  files = (await readdir(SERIES)).sort().map((f) => join(SERIES, f));
  zipPath = join(dir, 'series.zip');
  const zip = new yazl.ZipFile();
  for (const f of files) zip.addFile(f, `ct-head/${f.slice(SERIES.length + 1)}`);
  zip.end();
  const out = createWriteStream(zipPath);
  zip.outputStream.pipe(out);
  await once(out, 'close');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Reads a binary STL and welds corners by exact position, as any STL consumer must. */
async function readStl(path: string): Promise<{ positions: Float32Array; indices: Uint32Array }> {
  const b = await readFile(path);
  const tris = b.readUInt32LE(80);
  expect(b.length).toBe(84 + 50 * tris);
  const ids = new Map<string, number>();
  const pos: number[] = [];
  const indices = new Uint32Array(tris * 3);
  for (let t = 0; t < tris; t++) {
    for (let k = 0; k < 3; k++) {
      const o = 84 + t * 50 + 12 + k * 12;
      const key = b.toString('latin1', o, o + 12);
      let id = ids.get(key);
      if (id === undefined) {
        id = ids.size;
        ids.set(key, id);
        pos.push(b.readFloatLE(o), b.readFloatLE(o + 4), b.readFloatLE(o + 8));
      }
      indices[t * 3 + k] = id;
    }
  }
  return { positions: Float32Array.from(pos), indices };
}

const job = (workDir: string, over: Partial<ProcessorJob> = {}): ProcessorJob => ({
  jobId: 'test-job',
  inputs: [{ name: 'cbct', extension: '.zip', path: zipPath }],
  meshes: [{ extension: '.stl', structures: ['mandible'] }],
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
        meshes: [{ extension: '.stl', structures: ['mandible'] }],
      }),
    ).toBeNull();
    expect(
      p.validate({
        inputs: [{ name: 'cbct', extension: '.vti' }],
        meshes: [{ extension: '.stl', structures: ['right_nerve'] }],
      }),
    ).toMatch(/\.vti.*right_nerve/s);
  });

  it('turns the zipped series into a closed, edge-manifold mandible (bone) STL inside the scan', async () => {
    const workDir = join(dir, 'job1');
    const progress: ProcessorProgress[] = [];
    const result = await createSegmentationProcessor({ workers: 2 }).process(
      job(workDir),
      (p) => progress.push(p),
      new AbortController().signal,
    );
    expect(result.meshes).toHaveLength(1);
    const out = result.meshes[0]!;
    expect(out.path.startsWith(workDir)).toBe(true);
    expect(out.note).toMatch(/^mandible: bone surface, not separated from the skull/);
    expect(out.note).toMatch(/simplified within 0\.1 mm/);

    const mesh = await readStl(out.path);
    expect(mesh.indices.length / 3).toBe(out.triangles);
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
    console.log(`mandible on the phantom: ${out.triangles} triangles; ${out.note}`);
    // About 8 s on an idle two-core machine; the margin is for a machine shared with other suites.
  }, 120_000);

  it('stops promptly when the job is canceled', async () => {
    const ac = new AbortController();
    const p = createSegmentationProcessor({ workers: 1 }).process(
      job(join(dir, 'job2')),
      (pr) => {
        if (pr.fraction >= 0.05) ac.abort();
      },
      ac.signal,
    );
    const t0 = Date.now();
    await expect(p).rejects.toMatchObject({ code: 'canceled' });
    expect(Date.now() - t0).toBeLessThan(5000);
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

  it('segments a single multi-frame .dcm into PLY, OBJ and Draco files', async () => {
    const dcm = resolve('../shared/fixtures/dicom/multiframe/enhanced-ct-nema-ct0012-2frames.dcm');
    const workDir = join(dir, 'job4');
    const result = await createSegmentationProcessor({ workers: 1 }).process(
      job(workDir, {
        inputs: [{ name: 'cbct', extension: '.dcm', path: dcm }],
        meshes: ['.ply', '.obj', '.drc'].map((extension) => ({ extension, structures: ['soft_tissue'] })),
        options: { 'soft-tissue': { decimateMaxError: 0.2, smoothingIterations: 0 } },
      }),
      () => {},
      new AbortController().signal,
    );
    expect(result.meshes.map((m) => m.path.slice(-4))).toEqual(['.ply', '.obj', '.drc']);
    for (const m of result.meshes) {
      expect(m.triangles).toBeGreaterThan(100);
      expect(m.note).toMatch(/0 smoothing iterations; \d+ triangles \(from \d+, simplified within 0\.2 mm\)/);
    }
    expect(new Set(result.meshes.map((m) => m.triangles)).size).toBe(1);
  });
});
