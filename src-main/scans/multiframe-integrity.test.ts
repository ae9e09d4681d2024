import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import dicomParser from 'dicom-parser';
import { describe, expect, it } from 'vitest';
import type { IntakeResult } from '../../src-shared/scans.js';
import { bufferSource, FIRST_CHUNK, readDicomHeader } from './dicom-file.js';
import { craniumFrames, enhancedCt } from './enhanced-ct.test-support.js';
import { fieldsOfRead } from './header-read.js';
import { intake } from './intake.js';
import { FIXTURES, phantomBySlice, tempFolders } from './scans.test-support.js';
import { readVolume } from './volume-reader.js';

const { fresh } = tempFolders('s2m-multiframe-');

async function inspect(name: string, bytes: Buffer): Promise<IntakeResult> {
  const file = join(fresh(name), name);
  writeFileSync(file, bytes);
  return (await intake([file], { tempDir: fresh('work') })).result;
}

/** The words a file left out of the drop was refused with. */
const refusal = (r: IntakeResult): string | undefined =>
  r.problems.find((p) => p.code === 'corrupt-file')?.message;

const disagree = (name: string, claimed: string, what: string): string =>
  `${name} is a damaged or incomplete DICOM file and was left out (its header says it holds ${claimed}, but ${what}: which images make up the scan is not known; export the series again).`;

/** A copy of `bytes` whose encapsulated pixel data's Basic Offset Table lists `offsets`. */
function withOffsetTable(bytes: Buffer, offsets: number[]): Buffer {
  const px = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' }).elements.x7fe00010!;
  const at = px.dataOffset;
  const oldLength = bytes.readUInt32LE(at + 4);
  const table = Buffer.alloc(8 + 4 * offsets.length);
  bytes.copy(table, 0, at, at + 4);
  table.writeUInt32LE(4 * offsets.length, 4);
  offsets.forEach((o, i) => table.writeUInt32LE(o, 8 + 4 * i));
  return Buffer.concat([bytes.subarray(0, at), table, bytes.subarray(at + 8 + oldLength)]);
}

describe('a multi-frame file whose Number of Frames is not what it holds', () => {
  // 40 slices of the real cranium CT (58.5 mm): a header saying 30 left 15 mm of it out unsaid.
  const forty = craniumFrames(0, 40);

  it('is whole and fit when the counts agree', async () => {
    const r = await inspect('whole.dcm', enhancedCt(forty));
    expect(r.series[0]).toMatchObject({ slices: 40, fitness: { fit: true, reasons: [] } });
  });

  it('is refused when it holds more frames than it says (pixels and per-frame groups both)', async () => {
    const r = await inspect('low.dcm', enhancedCt(forty, { numberOfFrames: 30 }));
    expect(r.series).toEqual([]);
    expect(refusal(r)).toBe(
      disagree(
        'low.dcm',
        '30 images',
        'its image data holds 40 at the 16 bits per pixel it gives (Bits Allocated)',
      ),
    );
  });

  it('is refused when only its pixel data holds more frames', async () => {
    const r = await inspect('pixels.dcm', enhancedCt(forty, { numberOfFrames: 30, perFrameItems: 30 }));
    expect(refusal(r)).toBe(
      disagree(
        'pixels.dcm',
        '30 images',
        'its image data holds 40 at the 16 bits per pixel it gives (Bits Allocated)',
      ),
    );
  });

  it('is refused when its per-frame groups describe more or fewer frames than it says', async () => {
    const thirty = craniumFrames(0, 30);
    const more = await inspect('more.dcm', enhancedCt(thirty, { perFrameItems: 40 }));
    expect(refusal(more)).toBe(
      disagree('more.dcm', '30 images', 'it describes 40 one by one (Per-Frame Functional Groups)'),
    );
    const fewer = await inspect('fewer.dcm', enhancedCt(thirty, { perFrameItems: 25 }));
    expect(refusal(fewer)).toBe(
      disagree('fewer.dcm', '30 images', 'it describes 25 one by one (Per-Frame Functional Groups)'),
    );
  });

  it('is refused when a legacy multi-frame CT (no functional groups) holds more frames', async () => {
    const r = await inspect('legacy.dcm', enhancedCt(forty, { legacy: true, numberOfFrames: 30 }));
    expect(refusal(r)).toBe(
      disagree(
        'legacy.dcm',
        '30 images',
        'its image data holds 40 at the 16 bits per pixel it gives (Bits Allocated)',
      ),
    );
  });

  it('is refused when a single-frame file holds the pixels of two', async () => {
    const bytes = readFileSync(phantomBySlice()[70]!);
    const px = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' }).elements.x7fe00010!;
    const frame = bytes.subarray(px.dataOffset, px.dataOffset + px.length);
    const two = Buffer.concat([bytes.subarray(0, px.dataOffset + px.length), frame]);
    two.writeUInt32LE(2 * px.length, px.dataOffset - 4);
    const r = await inspect('two.dcm', two);
    expect(refusal(r)).toBe(
      disagree(
        'two.dcm',
        'one image',
        'its image data holds 2 at the 16 bits per pixel it gives (Bits Allocated)',
      ),
    );
  });
});

describe('an encapsulated file whose offset table lists another number of frames', () => {
  const jpeg = join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-jpegll70-fragmented-nobot.dcm');

  it('reads 2 frames in 19 fragments with a 2-entry offset table, as without one', async () => {
    const bytes = readFileSync(jpeg);
    const ds = dicomParser.parseDicom(bytes);
    const starts = dicomParser.createJPEGBasicOffsetTable(ds, ds.elements.x7fe00010!);
    expect(starts).toHaveLength(2);
    const dir = fresh('bot');
    writeFileSync(join(dir, 'bot.dcm'), withOffsetTable(bytes, starts));
    copyFileSync(jpeg, join(dir, 'nobot.dcm'));
    const r = (await intake([join(dir, 'bot.dcm')], { tempDir: fresh('work') })).result;
    expect(r.series[0]).toMatchObject({ slices: 2, multiFrame: true });
    const [withTable, without] = await Promise.all([
      readVolume([join(dir, 'bot.dcm')]),
      readVolume([join(dir, 'nobot.dcm')]),
    ]);
    expect(Buffer.from(withTable.data.buffer).equals(Buffer.from(without.data.buffer))).toBe(true);
  });

  it('is refused when the table lists more frames than the header says', async () => {
    const bytes = readFileSync(jpeg);
    const ds = dicomParser.parseDicom(bytes);
    const [a, b] = dicomParser.createJPEGBasicOffsetTable(ds, ds.elements.x7fe00010!);
    const r = await inspect('three.dcm', withOffsetTable(bytes, [a!, b!, b!]));
    expect(refusal(r)).toBe(
      disagree('three.dcm', '2 images', 'its compressed image data lists 3 (Basic Offset Table)'),
    );
  });

  it('is refused when a single-frame file lists two (read by the tag-only reader)', async () => {
    const bytes = readFileSync(join(FIXTURES, 'transfer-syntax', 'ct-512-jpegls-lossless.dcm'));
    const r = await inspect('ls.dcm', withOffsetTable(bytes, [0, 8]));
    expect(refusal(r)).toBe(
      disagree('ls.dcm', 'one image', 'its compressed image data lists 2 (Basic Offset Table)'),
    );
  });

  it('is refused when the header ends where the first read does (the table is read for)', () => {
    const bytes = withOffsetTable(
      readFileSync(join(FIXTURES, 'transfer-syntax', 'ct-512-jpegls-lossless.dcm')),
      [0, 8],
    );
    // An element just before the pixel data that puts the pixel data's value at the end of the
    // first chunk: the offset table's item is then not among the bytes read for the header.
    const at = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' }).elements.x7fe00010!.dataOffset - 12;
    const pad = Buffer.alloc(12 + FIRST_CHUNK - 24 - at);
    pad.writeUInt32LE(0x10007fdf, 0);
    pad.write('OB', 4, 'latin1');
    pad.writeUInt32LE(pad.length - 12, 8);
    const padded = Buffer.concat([bytes.subarray(0, at), pad, bytes.subarray(at)]);
    const read = readDicomHeader(bufferSource(padded));
    if ('notDicom' in read) throw new Error('not read as DICOM');
    expect(() => fieldsOfRead('padded.dcm', read)).toThrow(
      'its header says it holds one image, but its compressed image data lists 2 (Basic Offset Table)',
    );
  });
});
