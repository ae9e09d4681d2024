// A compressed series whose headers claim far more pixels than its compressed data could hold: 61
// files of 257 bytes of valid JPEG 2000 each claiming 4900 x 4900 were called fit and took the local
// engine 45 s and 3.3 GB to read as blank (a review). Said at once, from the headers and the image
// data's fragments.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { intake } from './intake.js';
import {
  FIXTURES,
  patchElement,
  pydicomMissing,
  python,
  short16,
  tempFolders,
} from './scans.test-support.js';

const { fresh } = tempFolders('s2m-compressed-ratio-');

/** A compressed MR slice of the fixtures' series, claiming 60000 x 60000 pixels, and trailing bytes. */
function claiming(file: string, trailing = 0): Buffer {
  const bytes = readFileSync(join(FIXTURES, 'transfer-syntax', file));
  patchElement(bytes, 'x00280010', short16(60000));
  patchElement(bytes, 'x00280011', short16(60000));
  if (trailing === 0) return bytes;
  // Data Set Trailing Padding (FFFC,FFFC), OB, after the image data.
  const head = Buffer.from([0xfc, 0xff, 0xfc, 0xff, 0x4f, 0x42, 0, 0, 0, 0, 0, 0]);
  head.writeUInt32LE(trailing, 8);
  return Buffer.concat([bytes, head, Buffer.alloc(trailing)]);
}

async function problemsOf(files: Record<string, Buffer>): Promise<string> {
  const dir = fresh('series');
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
  const out = await intake([dir], { tempDir: fresh('work'), workers: false });
  expect(out.result.series).toHaveLength(1);
  return out.result.series[0]!.problems.map((p) => p.message).join('\n');
}

const FAR = /claim [\d.]+ GiB of pixels in [\d.]+ KiB of compressed data, \d+ times more/;

describe('a compressed series', () => {
  it('claiming hundreds of times more pixels than its compressed data holds is refused in words', async () => {
    const said = await problemsOf({
      'a.dcm': claiming('mr-ts-j2k-lossless.dcm'),
      'b.dcm': claiming('mr-ts-jpegls-lossless.dcm'),
    });
    expect(said).toMatch(FAR);
  });

  it('is judged from its fragments alone: bytes after the image data do not count (a review)', async () => {
    const said = await problemsOf({
      'a.dcm': claiming('mr-ts-j2k-lossless.dcm', 2_000_000),
      'b.dcm': claiming('mr-ts-jpegls-lossless.dcm', 2_000_000),
    });
    expect(said).toMatch(FAR);
  });

  it('is judged from its compressed files whatever the first file is (a review passed one uncompressed first)', async () => {
    const said = await problemsOf({
      'a.dcm': readFileSync(join(FIXTURES, 'transfer-syntax', 'mr-ts-implicit-le.dcm')),
      'b.dcm': claiming('mr-ts-j2k-lossless.dcm'),
      'c.dcm': claiming('mr-ts-jpegls-lossless.dcm'),
    });
    expect(said).toMatch(FAR);
  });

  it('as it is, compressed a few times, is read; one lossy image alone is not judged', async () => {
    const said = await problemsOf({
      'a.dcm': readFileSync(join(FIXTURES, 'transfer-syntax', 'mr-ts-j2k-lossless.dcm')),
      'b.dcm': readFileSync(join(FIXTURES, 'transfer-syntax', 'mr-ts-jpegls-lossless.dcm')),
    });
    expect(said).not.toMatch(/times more/);
    const lossy = await intake([join(FIXTURES, 'transfer-syntax', 'nm-j2k-lossy-small.dcm')], {
      tempDir: fresh('work'),
      workers: false,
    });
    expect(lossy.result.series[0]!.problems.map((p) => p.message).join('\n')).not.toMatch(/times more/);
  });

  it.skipIf(pydicomMissing())('deflated whole, pixels and all, is judged the same (a review)', async () => {
    // Two real head slices, each a 64 x 64 piece of its image in a 5792 x 5792 frame of zeros, written
    // deflated by pydicom: 64 MiB of pixels each in about 70 KB (the review's files, 90 KB, were
    // called fit and took the engine 3.5 GB).
    const dir = fresh('deflated');
    python<null>(
      `import sys, pydicom, numpy as np
from pydicom.uid import DeflatedExplicitVRLittleEndian
for i, name in enumerate(['slice050.dcm', 'slice051.dcm']):
    ds = pydicom.dcmread(sys.argv[1] + '/' + name)
    a = np.zeros((5792, 5792), dtype=ds.pixel_array.dtype); a[:64, :64] = ds.pixel_array[96:160, 96:160]
    ds.Rows = 5792; ds.Columns = 5792; ds.PixelData = a.tobytes()
    ds.file_meta.TransferSyntaxUID = DeflatedExplicitVRLittleEndian
    ds.is_implicit_VR = False; ds.is_little_endian = True
    ds.save_as(sys.argv[2] + '/' + name, write_like_original=False)
print('null')`,
      [join(FIXTURES, 'ct-human-cranium-teeth'), dir],
    );
    const out = await intake([dir], { tempDir: fresh('work'), workers: false });
    const [series] = out.result.series;
    expect(series!.fitness.fit).toBe(false);
    expect(series!.problems.map((p) => p.message).join('\n')).toMatch(
      /claim 128 MiB of pixels in [\d.]+ KiB of compressed data, \d+ times more/,
    );
    // The real deflated fixture, as it is: read.
    const real = await intake([join(FIXTURES, 'transfer-syntax', 'deflated-explicit-le.dcm')], {
      tempDir: fresh('work'),
      workers: false,
    });
    expect(real.result.series[0]!.problems.map((p) => p.message).join('\n')).not.toMatch(/times more/);
  });

  // A review: a compressed slice whose image data holds no fragment, or only empty ones, was called
  // fit (pydicom cannot read it); only the local engine's job refused it, a service would get a hole.
  it('whose image data has no fragments, or only empty ones, is refused in words, naming the file', async () => {
    const rle = readFileSync(join(FIXTURES, 'transfer-syntax', 'mr-ts-rle.dcm'));
    expect(await problemsOf({ 'a.dcm': rle })).not.toContain('no image data');
    // Past the 100,000 items a walk once stopped at: a million empty fragments went by (a review).
    const many = Array.from({ length: 150_000 }, () => Buffer.alloc(0));
    for (const fragments of [[], [Buffer.alloc(0), Buffer.alloc(0), Buffer.alloc(0)], many]) {
      const said = await problemsOf({ 'b.dcm': withFragments(rle, fragments) });
      expect(said, `${fragments.length} fragments`).toContain(
        'b.dcm holds no image data: its compressed image data has no fragments, or only empty ones. The file is damaged;',
      );
    }
    // The same crowd of empty fragments before the image's own is walked through to it.
    const image = Buffer.from(rle.subarray(rle.length - 4096));
    expect(await problemsOf({ 'c.dcm': withFragments(rle, [...many, image]) })).not.toContain(
      'no image data',
    );
  });
});

/** The file with its encapsulated image data replaced: an empty offset table, then `fragments`. */
function withFragments(bytes: Buffer, fragments: Buffer[]): Buffer {
  // (7FE0,0010) OB, undefined length: its items start 12 bytes on.
  const at = bytes.lastIndexOf(
    Buffer.from([0xe0, 0x7f, 0x10, 0x00, 0x4f, 0x42, 0, 0, 0xff, 0xff, 0xff, 0xff]),
  );
  if (at < 0) throw new Error('no encapsulated image data');
  const item = (data: Buffer): Buffer => {
    const head = Buffer.from([0xfe, 0xff, 0x00, 0xe0, 0, 0, 0, 0]);
    head.writeUInt32LE(data.length, 4);
    return Buffer.concat([head, data]);
  };
  const end = Buffer.from([0xfe, 0xff, 0xdd, 0xe0, 0, 0, 0, 0]);
  return Buffer.concat([bytes.subarray(0, at + 12), item(Buffer.alloc(0)), ...fragments.map(item), end]);
}
