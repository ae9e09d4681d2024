import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memorySlices } from '../../scans/slice-source.js';
import { phantomFiles } from '../../scans/scans.test-support.js';
import { readVolume } from '../../scans/volume-reader.js';
import { histogram } from './histogram.js';
import { createSlabPool, type SlabPool } from './iso-surface.js';
import { countOnWorkers, readJobVolume, runsOnWorkers } from './job-volume.js';
import { deriveThresholds, levelOf, segmentTissue } from './tissue.js';

let pool: SlabPool;
beforeAll(async () => {
  pool = await createSlabPool(2);
});
afterAll(async () => {
  await pool.close();
});

/** Files held as the engine holds an upload: views of one SharedArrayBuffer, at odd offsets. */
function sharedSlices(files: string[]): Map<string, Buffer> {
  const bytes = files.map((f) => readFileSync(f));
  const whole = Buffer.from(new SharedArrayBuffer(bytes.reduce((n, b) => n + b.length + 1, 0)));
  const held = new Map<string, Buffer>();
  let at = 1;
  for (const [i, b] of bytes.entries()) {
    b.copy(whole, at);
    held.set(files[i]!, whole.subarray(at, at + b.length));
    at += b.length + 1;
  }
  return held;
}

describe('the job volume, copied and counted on the mesh workers', () => {
  it('holds exactly the values read from disk, and the same histogram', async () => {
    const files = phantomFiles();
    const source = memorySlices(sharedSlices(files));
    let copied = 0;
    const counting = { run: pool.run.bind(pool), size: pool.size };
    const watched = {
      ...counting,
      run: (task: Parameters<SlabPool['run']>[0]) => {
        if (task.kind === 'planes') copied += task.planes.length;
        return counting.run(task);
      },
    } as unknown as SlabPool;
    const volume = await readJobVolume(files, source, watched);
    const disk = await readVolume(files);
    expect(copied).toBe(files.length);
    expect(volume.data.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Buffer.from(volume.data.buffer).equals(Buffer.from(disk.data.buffer))).toBe(true);
    const counted = await countOnWorkers(volume.data, pool);
    expect(counted).toEqual(histogram(disk.data));
    // Bone: the runs the workers find give the same region as this thread finds alone.
    const t = deriveThresholds(volume.data, volume.modality);
    const found = await runsOnWorkers(volume, levelOf('bone', t), pool);
    expect(found!.length).toBeGreaterThan(1);
    const there = segmentTissue(volume, 'bone', t, new Uint8Array(volume.data.length), found);
    const here = segmentTissue(volume, 'bone', t, new Uint8Array(volume.data.length));
    expect(there.components).toEqual(here.components);
    expect(Buffer.from(there.mask).equals(Buffer.from(here.mask))).toBe(true);
    expect(there.runs).toEqual(here.runs);
  });
});
