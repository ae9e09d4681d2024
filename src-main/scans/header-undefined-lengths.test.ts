// Undefined lengths where the standard allows none, and a meta header that names the wrong VR
// encoding, built from a real phantom slice: each file is read as pydicom reads it or refused in
// words as damaged, never taken for "DICOM without image data".
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import dicomParser from 'dicom-parser';
import { describe, expect, it } from 'vitest';
import { readDicomFile } from './dicom-file.js';
import { intake } from './intake.js';
import { frameStoredValues } from './pixel-decode.js';
import { readSeriesHeaders } from './volume-reader.js';
import { phantomFiles, tempFolders } from './scans.test-support.js';

const { fresh } = tempFolders('s2m-undefined-');
const LONG_VRS = ['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV'];

/** Where the first data set element of group `group` or later starts (explicit VR little endian). */
function elementStart(bytes: Buffer, group: number): number {
  const ds = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' });
  const tag = `x${group.toString(16).padStart(4, '0')}0000`;
  const next = Object.values(ds.elements)
    .filter((e) => e.tag >= tag)
    .sort((a, b) => a.dataOffset - b.dataOffset)[0]!;
  return next.dataOffset - (LONG_VRS.includes(next.vr ?? '') ? 12 : 8);
}

/** The slice with a private (0009,1010) of `vr`, undefined length, ended by a sequence delimiter. */
function withUndefinedValue(src: Buffer, vr: string): Buffer {
  const at = elementStart(src, 0x0009);
  const head = Buffer.from([
    0x09,
    0x00,
    0x10,
    0x10,
    vr.charCodeAt(0),
    vr.charCodeAt(1),
    0,
    0,
    0xff,
    0xff,
    0xff,
    0xff,
  ]);
  const value = Buffer.from('private bytes, 16'.slice(0, 16), 'latin1');
  const delimiter = Buffer.from([0xfe, 0xff, 0xdd, 0xe0, 0, 0, 0, 0]);
  return Buffer.concat([src.subarray(0, at), head, value, delimiter, src.subarray(at)]);
}

describe('undefined lengths and VR encodings a reader must not guess', () => {
  it('refuses an OB, OW or UT of undefined length as damaged, naming it, and keeps the other files', async () => {
    const dir = fresh('stray');
    const slices = phantomFiles().slice(0, 4);
    for (const f of slices.slice(1)) copyFileSync(f, join(dir, basename(f)));
    const src = readFileSync(slices[0]!);
    for (const vr of ['OB', 'OW', 'UT'])
      writeFileSync(join(dir, `undefined-${vr}.dcm`), withUndefinedValue(src, vr));
    const { result } = await intake([dir], { tempDir: fresh('work') });
    expect(result.series[0]!.slices).toBe(3);
    for (const vr of ['OB', 'OW', 'UT'])
      expect(result.problems.find((p) => p.file === join(dir, `undefined-${vr}.dcm`))?.message).toBe(
        `undefined-${vr}.dcm is a damaged or incomplete DICOM file and was left out (its element (0009,1010) (${vr}) has an undefined length, which DICOM allows only for sequences and image data, so where its value ends (and where the image is) cannot be known: the file is damaged or was written by a program that does not follow the standard).`,
      );
  });

  it('reads a data set that names its VRs under a meta header saying implicit VR, as pydicom does', async () => {
    const src = readFileSync(phantomFiles()[0]!);
    const meta = dicomParser.parseDicom(src, { untilTag: 'x00080000' }).elements.x00020010!;
    // "1.2.840.10008.1.2.1" becomes "1.2.840.10008.1.2" and a NUL: the same length, another syntax.
    const lying = Buffer.from(src);
    lying.write('1.2.840.10008.1.2\0\0', meta.dataOffset, meta.length, 'latin1');
    const path = join(fresh('lying'), 'implicit-said.dcm');
    writeFileSync(path, lying);
    const [header] = await readSeriesHeaders([path]);
    expect(header!.rows).toBe(512);
    const parsed = await readDicomFile(path);
    expect(parsed.transferSyntaxUid).toBe('1.2.840.10008.1.2.1');
    const original = await readDicomFile(phantomFiles()[0]!);
    const [originalHeader] = await readSeriesHeaders([phantomFiles()[0]!]);
    expect(frameStoredValues(parsed, header!, 0)).toEqual(frameStoredValues(original, originalHeader!, 0));
  });
});
