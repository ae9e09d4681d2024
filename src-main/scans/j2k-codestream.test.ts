// JPEG 2000 frames whose codestream header does not fit their data or the DICOM header decode in
// OpenJPEG without an error into wrong images (a review: SIZ tiles patched, 63,316 of 65,536 pixels
// wrong, and a mesh made). Each case here changes the real JPEG 2000 MR fixture in one place.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src-shared/errors.js';
import { inspectedOne } from './intake-one.test-support.js';
import { FIXTURES, tempFolders } from './scans.test-support.js';
import { readVolume } from './volume-reader.js';

const { fresh } = tempFolders('s2m-j2k-');
/** 384 x 384, one component coded in 16 unsigned bits, Bits Stored 12, one tile. */
const MR = join(FIXTURES, 'transfer-syntax', 'mr-ts-j2k-lossless.dcm');

/** A copy of the MR whose codestream (from its SOC marker) is changed by `edit`. */
function mrWith(name: string, edit: (b: Buffer, soc: number) => void): string {
  const bytes = Buffer.from(readFileSync(MR));
  const soc = bytes.indexOf(Buffer.from([0xff, 0x4f, 0xff, 0x51]));
  edit(bytes, soc);
  const out = join(fresh(name), `${name}.dcm`);
  writeFileSync(out, bytes);
  return out;
}

async function readError(file: string): Promise<string> {
  const err = await readVolume([file]).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AppError);
  return (err as AppError).message;
}

const inspected = (file: string): ReturnType<typeof inspectedOne> => inspectedOne(file, fresh('work'));

describe('a JPEG 2000 frame whose structure does not fit', () => {
  it('is refused when SIZ declares 4 tiles and the codestream holds 1, by inspect and by a job', async () => {
    // XTsiz, YTsiz at 24 and 28 bytes from SOC: 192 x 192 tiles of a 384 x 384 image.
    const file = mrWith('tiles', (b, soc) => {
      b.writeUInt32BE(192, soc + 24);
      b.writeUInt32BE(192, soc + 28);
    });
    expect(await readError(file)).toBe(
      'The images in tiles.dcm cannot be read: it holds 1 of the 4 tiles its header gives: the rest of the image is missing, so it would decode to a wrong image: the image data is damaged; export the scan again from the scanner or PACS.',
    );
    const seen = await inspected(file);
    expect(seen.usable).toBe(false);
    expect(seen.errors).toContain(
      'The JPEG 2000 image data of tiles.dcm is damaged: it holds 1 of the 4 tiles its header gives: the rest of the image is missing, so it would decode to a wrong image. Export the scan again from the scanner or PACS.',
    );
    // The untouched MR (12 bits stored, coded in 16) is read, and inspect finds nothing in it.
    expect((await readVolume([MR])).dims).toEqual([384, 384, 1]);
    expect((await inspected(MR)).errors.filter((m) => m.includes('JPEG 2000'))).toEqual([]);
  });

  it('is refused when its precision is below Bits Stored', async () => {
    // Ssiz at 42: 11 bits (0x0a) where the header stores 12.
    const file = mrWith('precision', (b, soc) => (b[soc + 42] = 0x0a));
    expect(await readError(file)).toMatch(/holds 11-bit samples where the header says 12 bits stored in 16/);
    expect((await inspected(file)).usable).toBe(false);
  });

  it('is judged by its values, not its sign bit alone, as pydicom corrects a sign unlike the header', async () => {
    // Encoders that ignore the sign exist: a review's real head coded unsigned under a signed header
    // decoded exactly (pydicom too), and was refused for its sign bit. The decoded bits are read as
    // the header says; this sign bit flipped on the MR shifts its values past its 12 stored bits,
    // which the volume refuses.
    const file = mrWith('signed', (b, soc) => (b[soc + 42] = 0x8f));
    expect((await inspected(file)).errors.filter((m) => m.includes('JPEG 2000'))).toEqual([]);
    expect(await readError(file)).toMatch(/holds values wider than its Bits Stored \(12 bits\)/);
  });

  it('is refused when it subsamples the image (XRsiz 2)', async () => {
    const file = mrWith('subsampled', (b, soc) => (b[soc + 43] = 2));
    expect(await readError(file)).toMatch(/subsamples the image/);
    expect((await inspected(file)).usable).toBe(false);
  });

  it('is refused when its tile-part length (Psot) does not reach its end marker', async () => {
    const file = mrWith('psot', (b, soc) => {
      const sot = b.indexOf(Buffer.from([0xff, 0x90, 0x00, 0x0a]), soc);
      b.writeUInt32BE(b.readUInt32BE(sot + 6) - 2, sot + 6);
    });
    expect(await readError(file)).toMatch(/tile-part lengths do not add up to the codestream/);
    expect((await inspected(file)).usable).toBe(false);
  });
});
