import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import dicomParser from 'dicom-parser';
import { describe, expect, it } from 'vitest';
import { unfitReasons } from '../../src-shared/series-usable.js';
import { intake } from './intake.js';
import { patchElement, phantomBySlice, sameLength, tempFolders } from './scans.test-support.js';

// A scout filed in the scan's series (a reviewer's case): one localizer among the slices condemned the
// whole scan ("This series is a localizer", and a 0.0 mm gap that cannot be filled).

const { fresh } = tempFolders('s2m-localizer-');

describe('a localizer filed in the series of a scan', () => {
  it('is left out, named, and the scan is fit without it', async () => {
    const dir = fresh('with-scout');
    const files = phantomBySlice();
    for (const f of files) copyFileSync(f, join(dir, basename(f)));
    // A copy of a slice made a scout: its Image Type LOCALIZER, an instance of its own, sagittal.
    const bytes = readFileSync(files[0]!);
    patchElement(bytes, 'x00080008', sameLength(bytes, 'x00080008', 'ORIGINAL\\LOCALIZER'));
    for (const tag of ['x00080018', 'x00020003']) {
      const uid = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' }).string(tag)!;
      patchElement(bytes, tag, sameLength(bytes, tag, `${uid.slice(0, -1)}${uid.endsWith('9') ? '8' : '9'}`));
    }
    patchElement(bytes, 'x00200037', sameLength(bytes, 'x00200037', '0\\1\\0\\0\\0\\-1'));
    writeFileSync(join(dir, 'scout.dcm'), bytes);
    const { result } = await intake([dir], { tempDir: fresh('work') });
    const [series] = result.series;
    expect(series!.slices).toBe(140);
    expect(unfitReasons(series!, [])).toEqual([]);
    expect(series!.problems).toContainEqual({
      severity: 'info',
      code: 'localizers-left-out',
      message:
        '1 localizer image (the scout taken to plan the scan) was filed in this series and left out: scout.dcm.',
      file: expect.stringMatching(/scout\.dcm$/) as unknown,
    });
  });
});
