import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import dicomParser from 'dicom-parser';
import { describe, expect, it } from 'vitest';
import { intake } from './intake.js';
import { patchElement, phantomBySlice, sameLength, tempFolders } from './scans.test-support.js';

// Slices of one series that cannot be one volume (a reviewer's crafted cases, made into models without
// a word): one in another frame of reference, one of another modality.

const { fresh } = tempFolders('s2m-mixed-');

/** The phantom with `edit` applied to slice 71's bytes. */
async function phantomWith(name: string, edit: (bytes: Buffer) => void) {
  const dir = fresh(name);
  phantomBySlice().forEach((f, i) => {
    const bytes = readFileSync(f);
    if (i === 70) edit(bytes);
    writeFileSync(join(dir, basename(f)), bytes);
  });
  const { result } = await intake([dir], { tempDir: fresh('work') });
  expect(result.series).toHaveLength(1);
  return { series: result.series[0]!, slice: basename(phantomBySlice()[70]!) };
}

/** The UID at `tag` made another, its last digit changed (same length). */
function anotherUid(bytes: Buffer, tag: string): void {
  const uid = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' }).string(tag)!;
  patchElement(bytes, tag, sameLength(bytes, tag, `${uid.slice(0, -1)}${uid.endsWith('7') ? '8' : '7'}`));
}

describe('slices of one series that are not one volume', () => {
  it('one in another frame of reference is an error naming it', async () => {
    const { series, slice } = await phantomWith('frame', (bytes) => anotherUid(bytes, 'x00200052'));
    expect(series.fitness.fit).toBe(false);
    expect(series.problems).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        code: 'mixed-frames-of-reference',
        message: expect.stringContaining(`${slice} differs from`) as unknown,
      }),
    );
  });

  it('one of another modality is an error naming it', async () => {
    const { series, slice } = await phantomWith('modality', (bytes) => {
      patchElement(bytes, 'x00080060', sameLength(bytes, 'x00080060', 'MR'));
    });
    expect(series.fitness.fit).toBe(false);
    expect(series.problems).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        code: 'mixed-modalities',
        message: expect.stringContaining(`an MR (magnetic resonance) scan, in ${slice}`) as unknown,
      }),
    );
  });

  it('one of another study is an error naming it', async () => {
    const { series, slice } = await phantomWith('study', (bytes) => anotherUid(bytes, 'x0020000d'));
    expect(series.fitness.fit).toBe(false);
    expect(series.problems).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        code: 'mixed-studies',
        message: expect.stringContaining(`${slice} differs from`) as unknown,
      }),
    );
  });
});
