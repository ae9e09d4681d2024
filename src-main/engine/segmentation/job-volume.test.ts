import {
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldSlices, type SliceSource } from '../../scans/slice-source.js';
import { phantomFiles, short16, withElements, withPixels } from '../../scans/scans.test-support.js';
import { readVolume } from '../../scans/volume-reader.js';
import { histogram } from './histogram.js';
import { createSlabPool, type SlabPool } from './iso-surface.js';
import { readJobVolume, runsOnWorkers } from './job-volume.js';
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
    const { volume, histogram: counted } = await readJobVolume(files, source, watched);
    const disk = await readVolume(files);
    expect(copied).toBe(files.length);
    expect(volume.data.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Buffer.from(volume.data.buffer).equals(Buffer.from(disk.data.buffer))).toBe(true);
    // Counted by the workers while the slices were checked.
    expect(await counted).toEqual(histogram(disk.data));
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
      const { volume } = await readJobVolume(unpacked, source, watched);
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

  it('refuses a slice whose values are wider than its Bits Stored, on the workers and in this thread', async () => {
    // Enamel past 4095 in a file that says 12 bits: masked, as DICOM reads it, it became air (a review).
    const files = phantomFiles();
    const dir = mkdtempSync(join(tmpdir(), 'scan2mesh-job-volume-'));
    try {
      const wide = files.map((f, i) => {
        const out = join(dir, basename(f));
        const bytes = readFileSync(f);
        writeFileSync(
          out,
          i === 70 ? withPixels(bytes, (v, c, r) => (c === 256 && r === 256 ? 4200 : v)) : bytes,
        );
        return out;
      });
      const refusal = {
        code: 'bad-input',
        message: expect.stringContaining(
          `${basename(files[70]!)} holds values wider than its Bits Stored (12 bits)`,
        ),
      };
      await expect(readJobVolume(wide, heldSlices(sharedSlices(wide)), pool)).rejects.toMatchObject(refusal);
      await expect(readVolume(wide)).rejects.toMatchObject(refusal);
      // The same bit 15 set where the file says an overlay lies there (retired Overlay Bit Position), here the second overlay's (group 6002):
      // an overlay, masked as DICOM says, not a value.
      const overlay = join(dir, 'overlay');
      mkdirSync(overlay);
      const withOverlay = files.map((f, i) => {
        const out = join(overlay, basename(f));
        const bytes = readFileSync(f);
        const marked = withPixels(bytes, (v, c, r) => (r < 20 && c < 200 ? v | 0x8000 : v));
        writeFileSync(
          out,
          i === 70
            ? withElements(marked, [
                { tag: 'x60020010', vr: 'US', value: short16(512) },
                { tag: 'x60020011', vr: 'US', value: short16(512) },
                { tag: 'x60020100', vr: 'US', value: short16(16) },
                { tag: 'x60020102', vr: 'US', value: short16(15) },
              ])
            : bytes,
        );
        return out;
      });
      const { volume: read } = await readJobVolume(withOverlay, heldSlices(sharedSlices(withOverlay)), pool);
      // The bit position alone, without the overlay it belongs to, is no overlay (a review passed
      // enamel through by declaring bits 12 to 15 so).
      const bitsOnly = withOverlay.map((f, i) => {
        if (i !== 70) return f;
        const out = join(overlay, 'bits-only.dcm');
        const marked = withPixels(readFileSync(files[70]!), (v, c, r) =>
          r < 20 && c < 200 ? v | 0x8000 : v,
        );
        writeFileSync(
          out,
          withElements(marked, [
            { tag: 'x60020100', vr: 'US', value: short16(16) },
            { tag: 'x60020102', vr: 'US', value: short16(15) },
          ]),
        );
        return out;
      });
      await expect(readVolume(bitsOnly)).rejects.toMatchObject({ code: 'bad-input' });
      expect(Buffer.from(read.data.buffer).equals(Buffer.from((await readVolume(files)).data.buffer))).toBe(
        true,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
