import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import dicomParser from 'dicom-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diskSlices, type SliceSource } from '../../scans/slice-source.js';
import { FIXTURES, patchElement, sameLength } from '../../scans/scans.test-support.js';
import { createSlabPool, type SlabPool } from './iso-surface.js';
import { readJobVolume } from './job-volume.js';

/**
 * The volume's memory is bounded in bytes, whatever its samples: a scan whose rescale slope is not an
 * integer is read as 4-byte floats. Real files, as the audit made them: 30 RLE slices that say 7000 x
 * 7000 pixels (44 MB on disk, 1.47 billion voxels, under the voxel count the int16 limit allows) with
 * Rescale Slope 0.5, 5.9 GB as floats. Before, the engine decoded them (5.97 GB resident) and only then
 * failed, on their contrast.
 */
const CRANIUM = join(FIXTURES, 'ct-human-cranium-teeth');
const RLE_LOSSLESS = '1.2.840.10008.1.2.5';

let pool: SlabPool;
const dir = mkdtempSync(join(tmpdir(), 'scan2mesh-volume-size-'));
beforeAll(async () => {
  pool = await createSlabPool(1);
});
afterAll(async () => {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One RLE segment of `bytes` equal bytes (runs of 128, then the rest). */
function rleSegment(bytes: number): Buffer {
  const full = Math.floor(bytes / 128);
  const rest = bytes % 128;
  const seg = Buffer.alloc(full * 2 + (rest ? 2 : 0));
  for (let i = 0; i < full; i++) seg[2 * i] = 0x81; // 257 - 128: the next byte, 128 times
  if (rest) seg[full * 2] = 257 - rest;
  return seg.length % 2 ? Buffer.concat([seg, Buffer.alloc(1)]) : seg;
}

/** Encapsulated pixel data: an empty offset table, one frame of 16-bit RLE (two segments), the end. */
function encapsulatedRle(pixels: number): Buffer {
  const seg = rleSegment(pixels);
  const header = Buffer.alloc(64);
  header.writeUInt32LE(2, 0);
  header.writeUInt32LE(64, 4);
  header.writeUInt32LE(64 + seg.length, 8);
  const frame = Buffer.concat([header, seg, seg]);
  const item = (length: number): Buffer => {
    const b = Buffer.alloc(8);
    b.writeUInt32LE(0xe000fffe, 0);
    b.writeUInt32LE(length, 4);
    return b;
  };
  const element = Buffer.from([0xe0, 0x7f, 0x10, 0x00, 0x4f, 0x42, 0, 0, 0xff, 0xff, 0xff, 0xff]);
  const end = Buffer.from([0xfe, 0xff, 0xdd, 0xe0, 0, 0, 0, 0]);
  return Buffer.concat([element, item(0), item(frame.length), frame, end]);
}

/** The first `count` slices of a real series, said to be `size` x `size` RLE pixels with this slope. */
function slices(name: string, count: number, size: number, slope: string): string[] {
  const out = join(dir, name);
  mkdirSync(out);
  return readdirSync(CRANIUM)
    .sort()
    .slice(0, count)
    .map((file) => {
      const bytes = readFileSync(join(CRANIUM, file));
      const size16 = Buffer.alloc(2);
      size16.writeUInt16LE(size);
      patchElement(bytes, 'x00280010', size16);
      patchElement(bytes, 'x00280011', size16);
      patchElement(bytes, 'x00281053', sameLength(bytes, 'x00281053', slope));
      // Fine pixels, so that the scan is no wider than a head (7000 x 0.1 mm): only its size is wrong.
      patchElement(bytes, 'x00280030', sameLength(bytes, 'x00280030', '0.1\\0.1'));
      patchElement(bytes, 'x00020010', Buffer.from(`${RLE_LOSSLESS}\0`, 'latin1'));
      const pixelData = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' }).elements.x7fe00010!;
      // Explicit VR OW: 12 bytes of tag, VR and length before the value; pixel data is the last element.
      const path = join(out, file);
      writeFileSync(
        path,
        Buffer.concat([bytes.subarray(0, pixelData.dataOffset - 12), encapsulatedRle(size * size)]),
      );
      return path;
    });
}

/**
 * The files read from disk, with a count of the whole-file reads that decoding starts with. `refuse`:
 * such a read fails at once (a reader that decoded before checking the size would otherwise take
 * minutes and gigabytes to fail).
 */
function counted(refuse = false): { source: SliceSource; decoded: () => number } {
  let decoded = 0;
  return {
    source: {
      header: diskSlices.header,
      file: (path) => {
        decoded++;
        if (refuse) throw new Error(`${path} was decoded before the volume's size was checked`);
        return diskSlices.file(path);
      },
    },
    decoded: () => decoded,
  };
}

describe('the size of a job volume', () => {
  it('refuses, in words and before decoding any slice, a volume that would take more than 3 GB as floats', async () => {
    const files = slices('float', 30, 7000, '0.5');
    const { source, decoded } = counted(true);
    await expect(readJobVolume(files, source, pool)).rejects.toMatchObject({
      code: 'bad-input',
      // Said by the fitness check, which the engine's read runs first (as inspect and the app do).
      message: expect.stringContaining(
        'This scan would need 5.9 GB of memory as a volume (7000 x 7000 x 30 voxels of 4 bytes each, since its Rescale Slope or Intercept',
      ),
    });
    expect(decoded()).toBe(0);
  });

  it('reads the same slices at a size that fits, decoding each one', async () => {
    const files = slices('small', 30, 512, '0.5');
    const { source, decoded } = counted();
    const { volume } = await readJobVolume(files, source, pool);
    expect(volume.dims).toEqual([512, 512, 30]);
    expect(volume.data).toBeInstanceOf(Float32Array);
    expect(decoded()).toBe(30);
  });
});
