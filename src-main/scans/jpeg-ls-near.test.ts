// JPEG-LS compressed near-lossless (NEAR above 0) but labelled JPEG-LS Lossless was meshed as
// lossless (a review). The real 512 x 512 CT's pixels are encoded again here with CharLS, NEAR 3.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IntakeResult } from '../../src-shared/scans.js';
import { intake } from './intake.js';
import { FIXTURES, python, tempFolders } from './scans.test-support.js';

const { fresh } = tempFolders('s2m-jls-near-');
const CT = join(FIXTURES, 'transfer-syntax', 'ct-512-jpegls-lossless.dcm');
/** The same image uncompressed, whose pixels pydicom reads without a JPEG-LS decoder. */
const CT_RAW = join(FIXTURES, 'transfer-syntax', 'ct-512-implicit-le.dcm');

interface CharlsEncoder {
  getDecodedBuffer(f: {
    width: number;
    height: number;
    bitsPerSample: number;
    componentCount: number;
    isSigned: boolean;
  }): Uint8Array;
  setNearLossless(near: number): void;
  encode(): void;
  getEncodedBuffer(): Uint8Array;
  delete(): void;
}

/** The fixture with its image compressed again by CharLS at `near`, under the lossless UID. */
async function ctAtNear(near: number): Promise<string> {
  const dir = fresh(`near${near}`);
  const raw = join(dir, 'pixels.raw');
  python<number>(
    String.raw`
import sys, json, pydicom
ds = pydicom.dcmread(sys.argv[1])
open(sys.argv[2], 'wb').write(ds.pixel_array.astype('<i2').tobytes())
print(json.dumps(1))`,
    [CT_RAW, raw],
  );
  const require = createRequire(import.meta.url);
  const charls = require('@cornerstonejs/codec-charls/wasmjs') as () => Promise<{
    JpegLSEncoder: new () => CharlsEncoder;
  }>;
  const m = await charls();
  const e = new m.JpegLSEncoder();
  const frame = { width: 512, height: 512, bitsPerSample: 16, componentCount: 1, isSigned: true };
  e.getDecodedBuffer(frame).set(readFileSync(raw));
  e.setNearLossless(near);
  e.encode();
  writeFileSync(join(dir, 'frame.jls'), Buffer.from(e.getEncodedBuffer()));
  e.delete();
  const out = join(dir, 'ct.dcm');
  python<number>(
    String.raw`
import sys, json, pydicom
from pydicom.encaps import encapsulate
ds = pydicom.dcmread(sys.argv[1])
cs = open(sys.argv[2], 'rb').read()
ds.PixelData = encapsulate([cs + b'\0' * (len(cs) % 2)])
ds.save_as(sys.argv[3])
print(json.dumps(1))`,
    [CT, join(dir, 'frame.jls'), out],
  );
  return out;
}

async function problemsOf(file: string): Promise<IntakeResult['series'][number]['problems']> {
  return (await intake([file], { tempDir: fresh('work') })).result.series[0]!.problems;
}

describe('JPEG-LS under the lossless transfer syntax', () => {
  it('is said to be lossy when its scan was compressed near-lossless (NEAR 3), and not when lossless', async () => {
    const problems = await problemsOf(await ctAtNear(3));
    expect(problems.find((p) => p.code === 'lossy-compression')).toMatchObject({
      severity: 'warning',
      message: expect.stringMatching(
        /^The images of ct\.dcm are labelled JPEG-LS Lossless but were compressed near-lossless \(NEAR 3: each value may differ by up to 3/,
      ) as unknown,
    });
    // The same pixels encoded the same way without loss are not.
    const lossless = await problemsOf(await ctAtNear(0));
    expect(lossless.filter((p) => p.code === 'lossy-compression')).toEqual([]);
  });
});
