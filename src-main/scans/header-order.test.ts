import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDicomFile } from './dicom-file.js';
import { intake } from './intake.js';
import { phantomBySlice, shortElement, tempFolders } from './scans.test-support.js';

// A top-level element the app reads, once (PS3.5 7.1 keeps each once, in ascending order): a second Pixel Spacing after Bits
// Allocated was read as the file's (a reviewer's model came out at half its size), a second Rescale
// Intercept made a plate of "bone", and pydicom and scan2mesh kept different ones of two values.

const { fresh } = tempFolders('s2m-order-');

/** An explicit-VR little-endian element with a 2-byte length, its text padded to an even length. */
const element = (group: number, el: number, vr: string, text: string): Buffer =>
  shortElement(group, el, vr, Buffer.from(text.length % 2 ? `${text} ` : text, 'latin1'));

/** The file with `add` inserted just before the element (group, el). */
function insertBefore(bytes: Buffer, group: number, el: number, add: Buffer): Buffer {
  const tag = Buffer.alloc(4);
  tag.writeUInt16LE(group, 0);
  tag.writeUInt16LE(el, 2);
  const at = bytes.indexOf(tag, 132);
  if (at < 0) throw new Error('no such element');
  return Buffer.concat([bytes.subarray(0, at), add, bytes.subarray(at)]);
}

describe('a top-level element the app reads, met twice', () => {
  it('leave the file out as damaged, in words naming the element', async () => {
    const src = phantomBySlice()[70]!;
    const dir = fresh('twice');
    const spacing = join(dir, 'second-pixel-spacing.dcm');
    writeFileSync(
      spacing,
      insertBefore(readFileSync(src), 0x0028, 0x0101, element(0x0028, 0x0030, 'DS', '0.5\\0.5')),
    );
    const intercept = join(dir, 'second-intercept.dcm');
    writeFileSync(
      intercept,
      insertBefore(readFileSync(src), 0x7fe0, 0x0010, element(0x0028, 0x1052, 'DS', '2000')),
    );
    const { result } = await intake([dir], { tempDir: fresh('work') });
    expect(result.series).toEqual([]);
    const words = result.problems.map((p) => p.message);
    expect(words).toContainEqual(
      expect.stringMatching(
        /^second-pixel-spacing\.dcm is a damaged or incomplete DICOM file and was left out \(its header holds the element \(0028,0030\) twice, so which of its two values holds cannot be known/,
      ),
    );
    expect(words).toContainEqual(
      expect.stringMatching(
        /^second-intercept\.dcm is a damaged or incomplete DICOM file and was left out \(its header holds the element \(0028,1052\) twice/,
      ),
    );
    // Read whole (as a job reads a file), the same refusal.
    await expect(readDicomFile(spacing)).rejects.toThrow(/holds the element \(0028,0030\) twice/);
    // The file as it was is read.
    await expect(readDicomFile(src)).resolves.toBeTruthy();
  });

  it('is let be when it only describes (a Series Description twice decides nothing of a model)', async () => {
    const dir = fresh('described-twice');
    for (const f of phantomBySlice().slice(0, 40))
      writeFileSync(
        join(dir, f.split('/').pop()!),
        insertBefore(readFileSync(f), 0x0010, 0x0010, element(0x0008, 0x103e, 'LO', 'AGAIN')),
      );
    const { result } = await intake([dir], { tempDir: fresh('work-2') });
    expect(result.problems.map((p) => p.message)).toEqual([]);
    expect(result.series[0]!.slices).toBe(40);
  });
});
