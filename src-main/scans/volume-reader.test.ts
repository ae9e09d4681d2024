import { copyFileSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src-shared/errors.js';
import { readDicomHeaderSync } from './dicom-file.js';
import { fuzzSources, mutate, prng } from './header-fuzz.test-support.js';
import { fieldsOfRead } from './header-read.js';
import { heldSlices } from './slice-source.js';
import { readSeriesHeaders, readVolume } from './volume-reader.js';
import type { Volume } from './volume.js';
import { FIXTURES, copyClaimingSyntax, phantomFiles, pydicomMissing, python } from './scans.test-support.js';

const noPydicom = pydicomMissing();
const tmp = mkdtempSync(join(tmpdir(), 's2m-volume-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** pydicom's reading of the same files: sorted along the normal, rescaled (also per frame). */
const REFERENCE = String.raw`
import sys, json, pydicom, numpy as np
probes = json.loads(sys.argv[1]); files = sys.argv[2:]
dss = [pydicom.dcmread(f) for f in files]
if len(dss) == 1 and int(getattr(dss[0], 'NumberOfFrames', 1)) > 1:
    ds = dss[0]; arr = ds.pixel_array.astype(np.float64)
    sh = ds.SharedFunctionalGroupsSequence[0]
    ori = [float(v) for v in sh.PlaneOrientationSequence[0].ImageOrientationPatient]
    ps = [float(v) for v in sh.PixelMeasuresSequence[0].PixelSpacing]
    t = sh.PixelValueTransformationSequence[0]
    pos = [[float(v) for v in f.PlanePositionSequence[0].ImagePositionPatient] for f in ds.PerFrameFunctionalGroupsSequence]
    frames = [arr[i] * float(t.RescaleSlope) + float(t.RescaleIntercept) for i in range(arr.shape[0])]
else:
    ori = [float(v) for v in dss[0].ImageOrientationPatient]; ps = [float(v) for v in dss[0].PixelSpacing]
    pos = [[float(v) for v in d.ImagePositionPatient] for d in dss]
    frames = [d.pixel_array.astype(np.float64) * float(getattr(d, 'RescaleSlope', 1)) + float(getattr(d, 'RescaleIntercept', 0)) for d in dss]
n = np.cross(ori[:3], ori[3:])
order = sorted(range(len(pos)), key=lambda i: float(np.dot(pos[i], n)))
vol = np.stack([frames[i] for i in order])
print(json.dumps({'dims': [vol.shape[2], vol.shape[1], vol.shape[0]], 'pixelSpacing': ps, 'orientation': ori,
  'origin': pos[order[0]], 'last': pos[order[-1]], 'sum': float(vol.sum()),
  'samples': [float(vol[k, j, i]) for (i, j, k) in probes]}))
`;

function probesFor(dims: [number, number, number]): [number, number, number][] {
  const [nx, ny, nz] = dims;
  const out: [number, number, number][] = [
    [0, 0, 0],
    [nx - 1, ny - 1, nz - 1],
    [nx >> 1, ny >> 1, nz >> 1],
  ];
  // A spread of fixed pseudo-random voxels.
  let seed = 12345;
  for (let n = 0; n < 40; n++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    out.push([seed % nx, (seed >> 9) % ny, (seed >> 3) % nz]);
  }
  return out;
}

function at(v: Volume, [i, j, k]: [number, number, number]): number {
  return v.data[i + j * v.dims[0] + k * v.dims[0] * v.dims[1]]!;
}

function sum(v: Volume): number {
  let s = 0;
  for (let i = 0; i < v.data.length; i++) s += v.data[i]!;
  return s;
}

interface Reference {
  dims: number[];
  pixelSpacing: number[];
  orientation: number[];
  origin: number[];
  last: number[];
  sum: number;
  samples: number[];
}

function expectMatches(v: Volume, files: string[]): void {
  const probes = probesFor(v.dims);
  const ref = python<Reference>(REFERENCE, [JSON.stringify(probes), ...files]);
  expect(v.dims).toEqual(ref.dims);
  // Volume spacing is [column, row, slice]; DICOM PixelSpacing is [row, column].
  expect(v.spacing[0]).toBeCloseTo(ref.pixelSpacing[1]!, 6);
  expect(v.spacing[1]).toBeCloseTo(ref.pixelSpacing[0]!, 6);
  v.origin.forEach((c, i) => expect(c).toBeCloseTo(ref.origin[i]!, 4));
  v.rowDir.forEach((c, i) => expect(c).toBeCloseTo(ref.orientation[i]!, 6));
  v.colDir.forEach((c, i) => expect(c).toBeCloseTo(ref.orientation[i + 3]!, 6));
  // The last slice's position, reached through the volume's own geometry.
  const k = v.dims[2] - 1;
  v.origin.forEach((c, i) => expect(c + k * v.spacing[2] * v.sliceDir[i]!).toBeCloseTo(ref.last[i]!, 4));
  expect(sum(v)).toBe(ref.sum);
  expect(probes.map((p) => at(v, p))).toEqual(ref.samples);
}

describe.skipIf(noPydicom !== null)(
  `readVolume against pydicom${noPydicom ? ` (skipped: ${noPydicom})` : ''}`,
  () => {
    it('reads the 140-slice phantom in slice order, rescaled to HU, as int16', async () => {
      const files = phantomFiles().reverse(); // order given must not matter
      const v = await readVolume(files);
      expect(v.data).toBeInstanceOf(Int16Array);
      expect(v.modality).toBe('CT');
      expect(v.spacing[2]).toBeCloseTo(1, 6);
      expect(v.sliceDir).toEqual([0, 0, 1]);
      expectMatches(v, files);
    });

    it('reads an Enhanced CT multi-frame file with per-frame positions and functional-group rescale', async () => {
      const file = join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm');
      const v = await readVolume([file]);
      expect(v.dims).toEqual([512, 512, 2]);
      // Orientation [-1,0,0, 0,1,0]: the normal is -z, so the frame at z = -149 comes first.
      expect(v.sliceDir).toEqual([0, 0, -1]);
      expect(v.spacing[2]).toBeCloseTo(10, 6);
      expectMatches(v, [file]);
    });

    it('reads big-endian and implicit-VR files the same as pydicom', async () => {
      for (const name of ['ct-512-explicit-be.dcm', 'ct-512-implicit-le.dcm']) {
        const file = join(FIXTURES, 'transfer-syntax', name);
        expectMatches(await readVolume([file]), [file]);
      }
    });
  },
);

describe('readVolume on compressed pixel data', () => {
  const plain = join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm');

  it('decodes RLE and fragmented JPEG Lossless to exactly the uncompressed values', async () => {
    const reference = await readVolume([plain]);
    for (const name of [
      'enhanced-ct-nema-ct0012-rle.dcm',
      'enhanced-ct-nema-ct0012-jpegll70-fragmented-nobot.dcm',
    ]) {
      const v = await readVolume([join(FIXTURES, 'multiframe', name)]);
      expect(v.dims).toEqual(reference.dims);
      expect(v.origin).toEqual(reference.origin);
      expect(Buffer.from(v.data.buffer).equals(Buffer.from(reference.data.buffer))).toBe(true);
    }
  });

  it('decodes single-frame RLE and JPEG Lossless MR slices to the values of the uncompressed file', async () => {
    const reference = await readVolume([join(FIXTURES, 'transfer-syntax', 'mr-ts-implicit-le.dcm')]);
    for (const name of ['mr-ts-rle.dcm', 'mr-ts-jpeg-lossless-sv1.dcm', 'mr-ts-explicit-be.dcm']) {
      const v = await readVolume([join(FIXTURES, 'transfer-syntax', name)]);
      expect(Buffer.from(v.data.buffer).equals(Buffer.from(reference.data.buffer))).toBe(true);
    }
  });

  it('decodes JPEG-LS and JPEG 2000 (WASM codecs) to exactly the uncompressed values', async () => {
    const mr = await readVolume([join(FIXTURES, 'transfer-syntax', 'mr-ts-implicit-le.dcm')]);
    for (const name of ['mr-ts-jpegls-lossless.dcm', 'mr-ts-j2k-lossless.dcm']) {
      const v = await readVolume([join(FIXTURES, 'transfer-syntax', name)]);
      expect(Buffer.from(v.data.buffer).equals(Buffer.from(mr.data.buffer)), name).toBe(true);
    }
    const ct = await readVolume([join(FIXTURES, 'transfer-syntax', 'ct-512-implicit-le.dcm')]);
    const ls = await readVolume([join(FIXTURES, 'transfer-syntax', 'ct-512-jpegls-lossless.dcm')]);
    expect(Buffer.from(ls.data.buffer).equals(Buffer.from(ct.data.buffer))).toBe(true);
  });

  it('refuses a compression it cannot decode with a clear bad-input error', async () => {
    const file = copyClaimingSyntax(
      join(FIXTURES, 'transfer-syntax', 'mr-ts-j2k-lossless.dcm'),
      join(tmp, 'jpeg-ext.dcm'),
    );
    const err = await readVolume([file]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('bad-input');
    expect((err as AppError).message).toMatch(
      /jpeg-ext\.dcm cannot be read: its pixels are compressed as JPEG Extended/,
    );
    expect((err as AppError).action).toMatch(/without compression/);
  });
});

describe('readSeriesHeaders', () => {
  it('reads the same fields as dicom-parser does, and a header handed out can change without changing later reads', async () => {
    const files = phantomFiles();
    const headers = await readSeriesHeaders(files);
    const byParser = files.map((f) => {
      const r = readDicomHeaderSync(f);
      if ('notDicom' in r) throw new Error(`${f} is not DICOM`);
      return fieldsOfRead(f, r).header;
    });
    expect(headers).toEqual(byParser);
    // The tag-only reader makes the headers of a series from its first file's: that one is the
    // caller's to change, not the model of the next read.
    const first = headers[0]!;
    first.imageType = 'ORIGINAL\\PRIMARY\\LOCALIZER';
    first.frames[0]!.slope = 99;
    first.rows = 1;
    expect(await readSeriesHeaders(files)).toEqual(byParser);
  });
});

describe('readVolume from slices held in memory', () => {
  it('reads uncompressed frames in place, without parsing the files again, to the same values as from disk', async () => {
    const sets = [
      phantomFiles().slice(60, 64),
      [join(FIXTURES, 'transfer-syntax', 'ct-512-implicit-le.dcm')],
      [join(FIXTURES, 'transfer-syntax', 'mr-ts-implicit-le.dcm')],
      [join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm')],
    ];
    for (const files of sets) {
      const parsed: string[] = [];
      const memory = heldSlices(new Map(files.map((f) => [f, readFileSync(f)])));
      const counted = { ...memory, file: (path: string) => (parsed.push(path), memory.file(path)) };
      const fromMemory = await readVolume(files, { source: counted });
      const fromDisk = await readVolume(files);
      expect(Buffer.from(fromMemory.data.buffer).equals(Buffer.from(fromDisk.data.buffer)), files[0]).toBe(
        true,
      );
      expect(parsed, files[0]).toEqual([]);
    }
  });

  it('parses the file when its bytes are not laid out where the header says (big endian, deflated, compressed)', async () => {
    for (const name of ['ct-512-explicit-be.dcm', 'deflated-explicit-le.dcm', 'mr-ts-rle.dcm']) {
      const file = join(FIXTURES, 'transfer-syntax', name);
      const parsed: string[] = [];
      const memory = heldSlices(new Map([[file, readFileSync(file)]]));
      const counted = { ...memory, file: (path: string) => (parsed.push(path), memory.file(path)) };
      const fromMemory = await readVolume([file], { source: counted });
      const fromDisk = await readVolume([file]);
      expect(Buffer.from(fromMemory.data.buffer).equals(Buffer.from(fromDisk.data.buffer)), name).toBe(true);
      expect(parsed, name).toEqual([file]);
    }
  });
});

describe('readVolume on bad input', () => {
  it('names a truncated file', async () => {
    const err = (await readVolume([join(FIXTURES, 'bad', 'mr-truncated-pixeldata.dcm')]).catch(
      (e: unknown) => e,
    )) as AppError;
    expect(err.code).toBe('bad-input');
    expect(err.message).toMatch(/mr-truncated-pixeldata\.dcm.*cut off/);
  });

  it('names a file whose header fields cannot be right (a frame count it has no room for)', async () => {
    const phantom = fuzzSources(FIXTURES).find((src) => src.name.startsWith('ct-head-phantom-1mm/'))!;
    const crafted = join(tmp, 'frames.dcm');
    writeFileSync(crafted, mutate(phantom, 'frames-3000000', prng(3)));
    // Both readers read this header; its fields are what is wrong.
    for (const files of [[crafted], [phantomFiles()[0]!, crafted]]) {
      const err = (await readVolume(files).catch((e: unknown) => e)) as AppError;
      expect(err).toBeInstanceOf(AppError);
      expect(err.code).toBe('bad-input');
      expect(err.message).toBe(
        'frames.dcm is damaged or incomplete and cannot be read (its header says it holds 3,000,000 images, but it has room for only one).',
      );
    }
  });

  it('names a file that is not DICOM', async () => {
    const junk = join(tmp, 'junk.dcm');
    writeFileSync(junk, Buffer.alloc(4096, 7));
    const err = (await readVolume([phantomFiles()[0]!, junk]).catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe('bad-input');
    expect(err.message).toMatch(/junk\.dcm is not a DICOM file/);
  });

  it('refuses files of two series, and files without images', async () => {
    const mixed = (await readVolume([phantomFiles()[0]!, join(FIXTURES, 'mr', 'mr-small-64x64.dcm')]).catch(
      (e: unknown) => e,
    )) as AppError;
    expect(mixed.message).toMatch(/2 different series/);
    const plan = (await readVolume([join(FIXTURES, 'bad', 'rtplan-no-pixeldata.dcm')]).catch(
      (e: unknown) => e,
    )) as AppError;
    expect(plan.message).toMatch(/holds no image/);
  });

  it('refuses slices lying on top of each other', async () => {
    const a = join(tmp, 'a');
    copyFileSync(phantomFiles()[0]!, a);
    const b = join(tmp, 'b');
    // Same slice, another SOP instance: a repeated image.
    const bytes = readFileSync(a);
    writeFileSync(b, bytes);
    const err = (await readVolume([a, b]).catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe('bad-input');
    expect(err.message).toMatch(/same place/);
  });

  it('stops when canceled', async () => {
    const ctl = new AbortController();
    ctl.abort();
    const err = (await readVolume(phantomFiles(), { signal: ctl.signal }).catch(
      (e: unknown) => e,
    )) as AppError;
    expect(err.code).toBe('canceled');
  });
});
