import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { intake } from './intake.js';
import { FIXTURES, shortElement, tempFolders } from './scans.test-support.js';

// Damaged image files a reader can still make something of (a reviewer's crafted slices). A sequence
// item without its end marker: a reader takes the rest of the
// header, the Series Instance UID and the image with it, for the item. The slice was skipped as
// "DICOM without image data", the series bridged the gap, and the job said done.

const CRANIUM = join(FIXTURES, 'ct-human-cranium-teeth');
const { fresh } = tempFolders('s2m-swallowed-');

/** Referenced Image Sequence of undefined length, its one item of undefined length never closed. */
function unclosedSequence(): Buffer {
  const sq = Buffer.alloc(12);
  sq.writeUInt16LE(0x0008, 0);
  sq.writeUInt16LE(0x1140, 2);
  sq.write('SQ', 4, 'latin1');
  sq.writeUInt32LE(0xffffffff, 8);
  const item = Buffer.alloc(8);
  item.writeUInt16LE(0xfffe, 0);
  item.writeUInt16LE(0xe000, 2);
  item.writeUInt32LE(0xffffffff, 4);
  const end = Buffer.alloc(8);
  end.writeUInt16LE(0xfffe, 0);
  end.writeUInt16LE(0xe0dd, 2);
  return Buffer.concat([
    sq,
    item,
    shortElement(0x0008, 0x1150, 'UI', Buffer.from('1.2.840.10008.5.1.4.1.1.2\0')),
    end,
  ]);
}

describe('an image file whose image a header swallowed', () => {
  it('is a damaged slice of its series, which is then not complete', async () => {
    const dir = fresh('cranium');
    for (const f of readdirSync(CRANIUM)) {
      const bytes = readFileSync(join(CRANIUM, f));
      if (f !== 'slice055.dcm') {
        copyFileSync(join(CRANIUM, f), join(dir, f));
        continue;
      }
      // Before Patient's Name (0010,0010), where the top level goes on in sequence order.
      const at = bytes.indexOf(Buffer.from([0x10, 0x00, 0x10, 0x00]), 132);
      writeFileSync(
        join(dir, f),
        Buffer.concat([bytes.subarray(0, at), unclosedSequence(), bytes.subarray(at)]),
      );
    }
    const { result } = await intake([dir], { tempDir: fresh('work') });
    expect(result.series).toHaveLength(1);
    const series = result.series[0]!;
    expect(series.fitness.fit).toBe(false);
    expect(series.problems).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        code: 'damaged-files',
        message:
          '1 file of this series is damaged: slice055.dcm (it says it is an image but holds no image data: the image was lost from the file, or its header runs on into it). The scan is not complete without it; export the series again.',
      }),
    );
  });
});

describe('image data a row or more longer than the image', () => {
  it('is damaged: whether the extra lies before the image or after it cannot be told', async () => {
    // A row of air before the image, as a reviewer's crafted slices had it: read from the start, the
    // model came out a millimetre off.
    const dir = fresh('extra-row');
    const bytes = readFileSync(join(CRANIUM, 'slice020.dcm'));
    const at = bytes.indexOf(Buffer.from([0xe0, 0x7f, 0x10, 0x00]), 132);
    const length = bytes.readUInt32LE(at + 8);
    const row = Buffer.alloc(256 * 2);
    for (let i = 0; i < 256; i++) row.writeInt16LE(-1024, 2 * i);
    const longer = Buffer.concat([bytes.subarray(0, at + 12), row, bytes.subarray(at + 12)]);
    longer.writeUInt32LE(length + row.length, at + 8);
    writeFileSync(join(dir, 'slice020.dcm'), longer);
    const { result } = await intake([dir], { tempDir: fresh('work-2') });
    expect(result.series[0]!.problems).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        message:
          'slice020.dcm holds more image data than its size says (131584 bytes for 131072, 1 row more), so where its image starts cannot be known: it is damaged.',
      }),
    );
    // One byte more (padding to an even length) is no row: the file as it was is read.
    const { result: plain } = await intake([join(CRANIUM, 'slice020.dcm')], { tempDir: fresh('work-3') });
    expect(plain.series[0]!.problems.filter((p) => p.code === 'corrupt-file')).toEqual([]);
  });
});
