// A valid Enhanced CT with an Extended Offset Table (7FE0,0001 and 7FE0,0002, VR OV, PS3.5 A.4):
// dicom-parser does not know the 64-bit VRs and read such a file as damaged. Made here from the
// real RLE Enhanced CT fixture, one fragment per frame, the table pointing at each.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import dicomParser from 'dicom-parser';
import { describe, expect, it } from 'vitest';
import { intake } from './intake.js';
import { FIXTURES, tempFolders } from './scans.test-support.js';
import { readVolume } from './volume-reader.js';

const { fresh } = tempFolders('s2m-eot-');
const SOURCE = join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-rle.dcm');

/** An explicit VR little endian OV element: tag, "OV", 2 reserved bytes, 4-byte length, 64-bit values. */
function ov(element: number, values: number[]): Buffer {
  const b = Buffer.alloc(12 + 8 * values.length);
  b.writeUInt16LE(0x7fe0, 0);
  b.writeUInt16LE(element, 2);
  b.write('OV', 4, 'latin1');
  b.writeUInt32LE(8 * values.length, 8);
  values.forEach((v, i) => b.writeBigUInt64LE(BigInt(v), 12 + 8 * i));
  return b;
}

function withExtendedOffsetTable(src: Buffer): Buffer {
  const px = dicomParser.parseDicom(src).elements.x7fe00010!;
  const fragments = px.fragments!;
  expect(fragments.length).toBe(2); // one per frame: the table can point at each
  // Offsets from the first byte of the first fragment's item, as the Basic Offset Table counts.
  const first = fragments[0]!.offset;
  const offsets = fragments.map((f) => f.offset - first);
  const lengths = fragments.map((f) => f.length);
  const at = px.dataOffset - 12; // the pixel data's own header (explicit VR OB: 12 bytes)
  return Buffer.concat([src.subarray(0, at), ov(0x0001, offsets), ov(0x0002, lengths), src.subarray(at)]);
}

describe('an Extended Offset Table', () => {
  it('is read, and the volume is the same as without it', async () => {
    const dir = fresh('eot');
    const file = join(dir, 'eot.dcm');
    writeFileSync(file, withExtendedOffsetTable(readFileSync(SOURCE)));
    const r = await intake([file], { tempDir: fresh('tmp') });
    expect(r.result.problems.filter((p) => p.code === 'corrupt-file')).toEqual([]);
    expect(r.result.series.map((s) => s.slices)).toEqual([2]);
    const [withTable, without] = await Promise.all([readVolume([file]), readVolume([SOURCE])]);
    expect(withTable.dims).toEqual(without.dims);
    expect(Buffer.from(withTable.data.buffer).equals(Buffer.from(without.data.buffer))).toBe(true);
  });
});
