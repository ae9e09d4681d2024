import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import dicomParser from 'dicom-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { unfitReasons } from '../../src-shared/series-usable.js';
import { decimalValue } from './dicom-decimal.js';
import { craniumFrames, enhancedCt } from './enhanced-ct.test-support.js';
import { intake } from './intake.js';
import {
  FIXTURES,
  patchElement,
  phantomFiles,
  pydicomMissing,
  python,
  sameLength,
  tempFolders,
} from './scans.test-support.js';
import { readSeriesHeaders, volumeFromHeaders } from './volume-reader.js';

// Numbers in DICOM text (DS, IS) read as DICOM writes them. parseFloat read "0,0\0,0\1,5" (a comma for
// the point) as 0, 0, 1: the real head's slices 1.5 mm apart became 1 and 2 mm apart, the volume was
// rebuilt on that grid, and the job said done with the odd slices half a millimetre from where the
// scanner put them.

const CRANIUM = join(FIXTURES, 'ct-human-cranium-teeth');
const folders = tempFolders('header-numbers-');
afterAll(() => rmSync(folders.root, { recursive: true, force: true }));

/** A copy of a series with `edit` applied to the bytes of the files it picks. */
function editedCopy(name: string, files: string[], edit: (bytes: Buffer, index: number) => boolean): string {
  const folder = folders.fresh(name);
  files.forEach((f, i) => {
    const bytes = readFileSync(f);
    edit(bytes, i);
    writeFileSync(join(folder, f.split('/').pop()!), bytes);
  });
  return folder;
}

const craniumFiles = (): string[] =>
  readdirSync(CRANIUM)
    .sort()
    .map((f) => join(CRANIUM, f));

/** Replaces a top-level DS element's points by commas, as a writer with a European locale does. */
function withCommas(bytes: Buffer, tag: string): void {
  const dicomText = currentText(bytes, tag);
  patchElement(bytes, tag, sameLength(bytes, tag, dicomText.replace(/\./g, ',')));
}

/** A top-level element's text, without the padding after it. */
function currentText(bytes: Buffer, tag: string): string {
  const el = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' }).elements[tag]!;
  return bytes.toString('latin1', el.dataOffset, el.dataOffset + el.length).replace(/[\0 ]+$/, '');
}

describe('DS and IS values read as DICOM writes them', () => {
  it('a value is digits with an optional point and exponent, spaces or NULs around it', () => {
    for (const [text, value] of [
      ['1.5', 1.5],
      [' -2 ', -2],
      ['1e3', 1000],
      ['.5', 0.5],
      ['5.', 5],
      ['+1', 1],
      ['1.5\0', 1.5],
      ['0\0 ', 0],
      [' \0-1.5', -1.5],
      ['-115.5', -115.5],
    ] as const)
      expect(decimalValue(text)).toBe(value);
    for (const text of ['1,5', '12abc', '3O.5', '0x10', '', ' ', '1.5.3', 'nan', 'Infinity', '1 5', '--1'])
      expect(decimalValue(text)).toBeNaN();
  });

  it.skipIf(pydicomMissing())('accepts and refuses what pydicom accepts and refuses', () => {
    // pydicom's DSfloat goes through Python's float(), which also takes "nan", "inf", "1_000" and
    // other digits than ASCII: values no DICOM writer makes and scan2mesh refuses, left out here.
    const texts = [
      '1.5',
      ' -2 ',
      '1e3',
      '.5',
      '5.',
      '+1',
      '1,5',
      '12abc',
      '3O.5',
      '0x10',
      '1.5.3',
      '1 5',
      '--1',
      '1e-3',
      '-.5e+2',
    ];
    const accepted = python<boolean[]>(
      `
import json, sys, warnings
warnings.simplefilter('ignore')
from pydicom.valuerep import DSfloat
out = []
for t in json.loads(sys.argv[1]):
    try:
        DSfloat(t); out.append(True)
    except Exception:
        out.append(False)
print(json.dumps(out))
`,
      [JSON.stringify(texts)],
    );
    expect(texts.map((t) => Number.isFinite(decimalValue(t)))).toEqual(accepted);
  });

  it('slices whose positions use a comma for the point are refused in words, naming the attribute and the files', async () => {
    const folder = editedCopy('comma-positions', craniumFiles(), (bytes) => {
      withCommas(bytes, 'x00200032');
      return true;
    });
    const { result } = await intake([folder], { tempDir: folders.fresh('work-1') });
    expect(result.series).toHaveLength(1);
    const reasons = unfitReasons(result.series[0]!, []);
    expect(reasons).toEqual([
      'Image Position (Patient) (0020,0032) holds "0,0\\0,0\\0,0" in slice001.dcm and 107 other files, which is not three numbers as DICOM writes them (digits with a decimal point, a backslash between values, and a comma is no decimal point there): where the slices lie cannot be read, and a model placed by a guess could be shifted or distorted. Export the scan again from the scanner or PACS; a program that converted or edited the files may have written the numbers its own way.',
    ]);
    const headers = await readSeriesHeaders(readdirSync(folder).map((f) => join(folder, f)));
    await expect(volumeFromHeaders(headers, undefined, { requireFit: true })).rejects.toThrow(
      'Image Position (Patient) (0020,0032) holds',
    );
  });

  it('one slice whose position holds a letter is refused, not placed at the number the text starts with', async () => {
    // "3O.5" (a letter O): parseFloat read 3, and the slice moved from 30 mm to 3 mm.
    const files = craniumFiles();
    const folder = editedCopy('letter-in-position', files, (bytes, i) => {
      if (i !== 20) return false;
      const text = currentText(bytes, 'x00200032');
      patchElement(
        bytes,
        'x00200032',
        sameLength(
          bytes,
          'x00200032',
          text.replace(/\\(\d)(\d)/, (_, a: string) => `\\${a}O`),
        ),
      );
      return true;
    });
    const { result } = await intake([folder], { tempDir: folders.fresh('work-2') });
    const reasons = unfitReasons(result.series[0]!, []);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(
      /^Image Position \(Patient\) \(0020,0032\) holds "[^"]*O[^"]*" in slice021\.dcm, which is not three numbers/,
    );
  });

  it('a pixel size with a comma is refused as unreadable, not as missing or as 0 mm', async () => {
    const folder = editedCopy('comma-spacing', phantomFiles(), (bytes) => {
      withCommas(bytes, 'x00280030');
      return true;
    });
    const { result } = await intake([folder], { tempDir: folders.fresh('work-3') });
    const reasons = unfitReasons(result.series[0]!, []);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(
      /^Pixel Spacing \(0028,0030\) holds "0,451171875\\0,451171875" in \S+ and 139 other files, .*the size of a pixel cannot be read/,
    );
    // Said once, as unreadable: not also "the images do not state their pixel size", and the 1 mm
    // stand-in the preview uses is marked as no measurement.
    const series = result.series[0]!;
    expect(series.problems.map((p) => p.code)).not.toContain('no-pixel-spacing');
    expect(series.pixelSpacingUnknown).toBe(true);
    expect(series.sliceSpacingUnknown).toBeUndefined();
  });

  it('a slice thickness with a comma is refused as unreadable, not taken as absent', async () => {
    // Taken as absent, the check of slices further apart than their thickness did not run: a
    // reviewer's positions stretched three-fold with Slice Thickness "1,5" were made into a model.
    const folder = editedCopy('comma-thickness', craniumFiles(), (bytes) => {
      withCommas(bytes, 'x00180050');
      return true;
    });
    const { result } = await intake([folder], { tempDir: folders.fresh('work-5') });
    expect(unfitReasons(result.series[0]!, [])).toEqual([
      expect.stringMatching(
        /^Slice Thickness \(0018,0050\) holds "1,5" in slice001\.dcm and 107 other files, which is not a number as DICOM writes them .*how much of the patient a slice shows cannot be read/,
      ),
    ]);
  });

  it('a rescale with a comma is not a number: refused, not read as the number its text starts with', async () => {
    const bytes = readFileSync(phantomFiles()[0]!);
    // The phantom's slope "1" as a comma-decimal writer makes it, in the element's two bytes.
    patchElement(bytes, 'x00281053', sameLength(bytes, 'x00281053', '1,'));
    const path = join(folders.fresh('comma-slope'), 'slope.dcm');
    writeFileSync(path, bytes);
    const [h] = await readSeriesHeaders([path]);
    expect(h!.frames[0]!.slope).toBeNaN();
  });

  it('an Enhanced CT frame whose Plane Position uses a comma is refused in words', async () => {
    const frames = craniumFrames(0, 30);
    const file = enhancedCt(frames);
    // Frame 6's position, "0\0\7.5", as the file holds it: its point made a comma.
    const own = Buffer.from('0\\0\\7.5');
    const at = file.indexOf(own);
    expect(at).toBeGreaterThan(0);
    file.write('0\\0\\7,5', at, 'latin1');
    const folder = folders.fresh('enhanced-comma');
    writeFileSync(join(folder, 'enhanced.dcm'), file);
    const { result } = await intake([folder], { tempDir: folders.fresh('work-4') });
    const reasons = unfitReasons(result.series[0]!, []);
    expect(reasons[0]).toMatch(
      /^Image Position \(Patient\) \(0020,0032\) holds "0\\0\\7,5" in enhanced\.dcm, /,
    );
    expect(reasons.join(' ')).not.toMatch(/do not give|not record where/);
  });
});
