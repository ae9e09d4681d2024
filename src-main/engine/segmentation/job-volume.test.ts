import { createWriteStream, mkdtempSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldSlices, type SliceSource } from '../../scans/slice-source.js';
import { phantomFiles } from '../../scans/scans.test-support.js';
import { readVolume } from '../../scans/volume-reader.js';
import { histogram } from './histogram.js';
import { createSlabPool, type SlabPool } from './iso-surface.js';
import { countOnWorkers, readJobVolume, runsOnWorkers } from './job-volume.js';
import { unpackInput } from './unpack.js';
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

/** The files in a stored zip in `dir`, as the app uploads them, unpacked as the engine does. */
async function unpackedStoredZip(
  files: string[],
  dir: string,
): Promise<{ zip: string; unpacked: string[]; source: SliceSource }> {
  const zip = join(dir, 'input.zip');
  const out = new yazl.ZipFile();
  for (const f of files) out.addBuffer(readFileSync(f), `series/${basename(f)}`, { compress: false });
  out.end();
  const sink = createWriteStream(zip);
  out.outputStream.pipe(sink);
  await once(sink, 'close');
  const { files: unpacked, source } = await unpackInput({ path: zip, extension: '.zip' }, join(dir, 'work'));
  return { zip, unpacked, source };
}

describe('the job volume, copied and counted on the mesh workers', () => {
  it('holds exactly the values read from disk, and the same histogram', async () => {
    const files = phantomFiles();
    const source = heldSlices(sharedSlices(files));
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

  it('reads the slices of a stored zip where they lie in it, on the workers, to the same values', async () => {
    const files = phantomFiles();
    const dir = mkdtempSync(join(tmpdir(), 'scan2mesh-job-volume-'));
    try {
      const { zip, unpacked, source } = await unpackedStoredZip(files, dir);
      // Nothing was written out or held: every slice lies in the zip.
      expect(unpacked.every((f) => source.region?.(f)?.file === zip)).toBe(true);
      let fromFile = 0;
      const watched = {
        size: pool.size,
        run: (task: Parameters<SlabPool['run']>[0]) => {
          if (task.kind === 'planes')
            fromFile += task.planes.filter((p) => !(p.bytes instanceof Uint8Array)).length;
          return pool.run(task);
        },
      } as unknown as SlabPool;
      const volume = await readJobVolume(unpacked, source, watched);
      const disk = await readVolume(files);
      expect(fromFile).toBe(files.length);
      expect(volume.dims).toEqual(disk.dims);
      expect(volume.origin).toEqual(disk.origin);
      expect(Buffer.from(volume.data.buffer).equals(Buffer.from(disk.data.buffer))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says a slice is damaged when the zip holding it was cut short after it was unpacked', async () => {
    const files = phantomFiles();
    const dir = mkdtempSync(join(tmpdir(), 'scan2mesh-job-volume-'));
    try {
      const { zip, unpacked, source } = await unpackedStoredZip(files, dir);
      // Cut inside the last slice's samples: its header reads, its plane cannot be copied whole.
      const last = source.region!(unpacked[unpacked.length - 1]!)!;
      truncateSync(zip, last.offset + last.size - 1000);
      await expect(readJobVolume(unpacked, source, pool)).rejects.toMatchObject({
        code: 'bad-input',
        message: expect.stringMatching(
          /^The uploaded scan cannot be read whole \(the file ends 1000 bytes before/,
        ),
      });
      // Cut inside the second slice's header: the reader says which file is damaged.
      const second = source.region!(unpacked[1]!)!;
      truncateSync(zip, second.offset + 4096);
      await expect(readJobVolume(unpacked, source, pool)).rejects.toMatchObject({
        code: 'bad-input',
        message: expect.stringMatching(/is damaged or incomplete and cannot be read \(it is cut off\)/),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
