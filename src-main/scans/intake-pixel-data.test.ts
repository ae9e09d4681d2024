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

describe('image data longer than the image', () => {
  it('is padding, read from the start with a warning, as DICOM allows older writers (PS3.5 8.1.1)', async () => {
    const dir = fresh('padded');
    const bytes = readFileSync(join(CRANIUM, 'slice020.dcm'));
    const at = bytes.indexOf(Buffer.from([0xe0, 0x7f, 0x10, 0x00]), 132);
    const length = bytes.readUInt32LE(at + 8);
    const padded = Buffer.concat([bytes, Buffer.alloc(512)]);
    padded.writeUInt32LE(length + 512, at + 8);
    writeFileSync(join(dir, 'slice020.dcm'), padded);
    const { result } = await intake([dir], { tempDir: fresh('work-2') });
    const problems = result.series[0]!.problems;
    expect(problems.filter((p) => p.code === 'corrupt-file')).toEqual([]);
    expect(problems).toContainEqual(
      expect.objectContaining({
        severity: 'warning',
        code: 'pixel-data-padding',
        message: expect.stringMatching(
          /^slice020\.dcm holds more image data than the image's size; the image is read from the start/,
        ) as unknown,
      }),
    );
  });

  it('followed by a second image is damaged: a reader keeps one or the other', async () => {
    // A reviewer's files: the job made its model of the first image, pydicom reads the second.
    const dir = fresh('second-image');
    const bytes = readFileSync(join(CRANIUM, 'slice020.dcm'));
    const at = bytes.indexOf(Buffer.from([0xe0, 0x7f, 0x10, 0x00]), 132);
    const head = bytes.subarray(at, at + 12);
    const image = bytes.subarray(at + 12);
    writeFileSync(join(dir, 'slice020.dcm'), Buffer.concat([bytes, head, Buffer.alloc(image.length, 7)]));
    const { result } = await intake([dir], { tempDir: fresh('work-3') });
    expect(result.series[0]!.problems).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        code: 'corrupt-file',
        message:
          'slice020.dcm holds the element (7FE0,0010) after its image data, out of the order DICOM keeps them in (a second image): which values hold cannot be known, so it is damaged.',
      }),
    );
    // The same behind a private element: each element after the image is stepped over.
    const hidden = fresh('second-image-hidden');
    const privateElement = shortElement(0x7fe1, 0x0010, 'LO', Buffer.from('X '));
    writeFileSync(
      join(hidden, 'slice020.dcm'),
      Buffer.concat([bytes, privateElement, head, Buffer.alloc(image.length, 7)]),
    );
    const { result: behind } = await intake([hidden], { tempDir: fresh('work-5') });
    expect(behind.series[0]!.problems.map((p) => p.message)).toContain(
      'slice020.dcm holds the element (7FE0,0010) after its image data, out of the order DICOM keeps them in (a second image): which values hold cannot be known, so it is damaged.',
    );
    // The file as it was: nothing after its image.
    const { result: plain } = await intake([join(CRANIUM, 'slice020.dcm')], { tempDir: fresh('work-4') });
    expect(plain.series[0]!.problems.filter((p) => p.code === 'corrupt-file')).toEqual([]);
    // Zero bytes after the image to the end of the file are a writer's padding (pydicom reads such a
    // file; a review's was refused for "the element (0000,0000)"); zeros before an element are not.
    const zeros = fresh('zero-tail');
    writeFileSync(join(zeros, 'slice020.dcm'), Buffer.concat([bytes, Buffer.alloc(16)]));
    const { result: padded } = await intake([zeros], { tempDir: fresh('work-6') });
    expect(padded.series[0]!.problems.filter((p) => p.code === 'corrupt-file')).toEqual([]);
    const zerosThenImage = fresh('zeros-then-image');
    writeFileSync(
      join(zerosThenImage, 'slice020.dcm'),
      Buffer.concat([bytes, Buffer.alloc(16), head, Buffer.alloc(image.length, 7)]),
    );
    const { result: smuggled } = await intake([zerosThenImage], { tempDir: fresh('work-7') });
    expect(smuggled.series[0]!.problems.map((p) => p.code)).toContain('corrupt-file');
  });
});
