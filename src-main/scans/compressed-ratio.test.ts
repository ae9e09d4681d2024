// A compressed series whose headers claim far more pixels than its files could hold: 61 files of 257
// bytes of valid JPEG 2000 each claiming 4900 x 4900 were called fit and took the local engine 45 s
// and 3.3 GB to read as blank (a review). Said at once, from the headers.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { intake } from './intake.js';
import { FIXTURES, patchElement, short16, tempFolders } from './scans.test-support.js';

const { fresh } = tempFolders('s2m-compressed-ratio-');

describe('a compressed series', () => {
  it('claiming hundreds of times more pixels than its files hold is refused in words', async () => {
    const bytes = readFileSync(join(FIXTURES, 'transfer-syntax', 'ct-512-jpegls-lossless.dcm'));
    patchElement(bytes, 'x00280010', short16(60000));
    patchElement(bytes, 'x00280011', short16(60000));
    const dir = fresh('claims');
    writeFileSync(join(dir, 'big.dcm'), bytes);
    const out = await intake([dir], { tempDir: fresh('work'), workers: false });
    const series = out.result.series[0]!;
    expect(series.previewable).toBe(false);
    expect(series.problems.map((p) => p.message).join('\n')).toMatch(
      /The compressed images of this series claim [\d.]+ GiB of pixels in [\d.]+ KiB of image data, \d+ times more/,
    );
  });

  it('is judged from its compressed files whatever the first file is (a review passed one uncompressed first)', async () => {
    // Two slices of one MR series: the first (by name) stored plain, the second in JPEG 2000 and
    // claiming 60000 x 60000 pixels.
    const dir = fresh('mixed');
    writeFileSync(
      join(dir, 'a.dcm'),
      readFileSync(join(FIXTURES, 'transfer-syntax', 'mr-ts-implicit-le.dcm')),
    );
    const j2k = readFileSync(join(FIXTURES, 'transfer-syntax', 'mr-ts-j2k-lossless.dcm'));
    patchElement(j2k, 'x00280010', short16(60000));
    patchElement(j2k, 'x00280011', short16(60000));
    writeFileSync(join(dir, 'b.dcm'), j2k);
    const out = await intake([dir], { tempDir: fresh('work'), workers: false });
    expect(out.result.series).toHaveLength(1);
    expect(out.result.series[0]!.problems.map((p) => p.message).join('\n')).toMatch(
      /of image data, \d+ times more/,
    );
  });

  it('as it is, compressed a few times, is read', async () => {
    const out = await intake([join(FIXTURES, 'transfer-syntax', 'ct-512-jpegls-lossless.dcm')], {
      tempDir: fresh('work'),
      workers: false,
    });
    expect(out.result.series[0]!.problems.map((p) => p.message).join('\n')).not.toMatch(/times more/);
  });
});
