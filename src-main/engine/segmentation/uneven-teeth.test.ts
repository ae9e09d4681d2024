// Thin slices through the jaws of a scan coarser above: the volume is rebuilt on the thin slices'
// spacing, so the teeth keep their resolution. On the median spacing (3 mm here) the teeth were
// refused, before packing and in the engine, though every slice through them is 1.5 mm apart.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionCapabilities, scanRefusalFor } from '../../app/structure-check.js';
import { summarizeSeries } from '../../scans/series-summary.js';
import { readSeriesHeaders, readVolume } from '../../scans/volume-reader.js';
import { writeZip } from '../../scans/zip.test-support.js';
import type { ProcessorResult } from '../processor.js';
import { createSegmentationProcessor } from './index.js';
import { madeMeshes } from './made-meshes.test-support.js';
import { meshBounds } from './mesh-checks.js';
import { readStl } from './stl.test-support.js';

/** A real human head CT, slices 1.5 mm apart, the upper teeth in its lowest ~20 mm (MANIFEST.md). */
const SERIES = resolve('../shared/fixtures/dicom/ct-human-cranium-teeth');
const processor = createSegmentationProcessor({ workers: 2 });
let dir: string;
let all: string[];
/** Every slice of the lowest 30 mm (1.5 mm apart), every other one above (3 mm apart). */
let thinJaws: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-uneven-teeth-'));
  all = (await readdir(SERIES)).sort().map((f) => join(SERIES, f));
  thinJaws = all.filter((_, k) => k <= 20 || (k - 20) % 2 === 0);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The engine's all_teeth and skull for these slices, as a local job makes them. */
async function teethJob(name: string, files: string[]): Promise<ProcessorResult> {
  const zipPath = join(dir, `${name}.zip`);
  await writeZip(
    zipPath,
    files.map((f) => ({ name: f.slice(SERIES.length + 1), file: f })),
  );
  return processor.process(
    {
      jobId: name,
      inputs: [{ name: 'cbct', extension: '.zip', path: zipPath }],
      meshes: [{ extension: '.stl', structures: ['all_teeth'] }],
      options: {},
      workDir: join(dir, name),
    },
    () => {},
    new AbortController().signal,
  );
}

describe('teeth on thin slices through the jaws of a coarser scan', () => {
  it('rebuilds the volume on the thin slices, and says the median spacing as it is', async () => {
    const headers = await readSeriesHeaders(thinJaws);
    const { summary } = summarizeSeries(headers, (p) => p);
    expect(thinJaws).toHaveLength(64);
    expect(summary.sliceSpacing).toBeCloseTo(3, 6);
    expect(summary.gridStep).toBeCloseTo(1.5, 6);
    // The check before packing takes the volume's step, so it lets the teeth through.
    const local = connectionCapabilities('local-engine', processor);
    expect(scanRefusalFor([{ structures: ['all_teeth'] }], local, summary)).toBeNull();

    const volume = await readVolume(thinJaws);
    expect(volume.dims[2]).toBe(107); // the last slice kept lies at 159 mm
    expect(volume.spacing[2]).toBeCloseTo(1.5, 6);
    // Planes through the thin slices are those slices, not blends: the same values as the full scan.
    const full = await readVolume(all);
    const plane = volume.dims[0] * volume.dims[1];
    const lowest = (v: typeof volume): Buffer => Buffer.from(v.data.buffer, 0, 21 * plane * 2);
    expect(lowest(volume).equals(lowest(full))).toBe(true);
  });

  it('makes the teeth where the full scan makes them', async () => {
    const [thin, whole] = [await teethJob('thin-jaws', thinJaws), await teethJob('whole', all)];
    const bounds = async (r: ProcessorResult) =>
      meshBounds((await readStl(madeMeshes(r)[0]!.path)).positions);
    const [a, b] = [await bounds(thin), await bounds(whole)];
    for (let i = 0; i < 3; i++) {
      expect(Math.abs(a.min[i]! - b.min[i]!)).toBeLessThan(1.5);
      expect(Math.abs(a.max[i]! - b.max[i]!)).toBeLessThan(1.5);
    }
  }, 120_000);
});
