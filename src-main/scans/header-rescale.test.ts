import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { patchElement, phantomFiles, sameLength } from './scans.test-support.js';
import { readSeriesHeaders } from './volume-reader.js';

const dir = mkdtempSync(join(tmpdir(), 'header-rescale-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Rescale Slope and Intercept as the header reads them', () => {
  it('are NaN when the file states something that is not a number, not a guessed 1 or 0', async () => {
    const bytes = readFileSync(phantomFiles()[0]!);
    patchElement(bytes, 'x00281053', sameLength(bytes, 'x00281053', 'x'));
    patchElement(bytes, 'x00281052', sameLength(bytes, 'x00281052', '?'));
    const path = join(dir, 'slope-not-a-number.dcm');
    writeFileSync(path, bytes);
    const [h] = await readSeriesHeaders([path]);
    expect(h!.frames[0]!.slope).toBeNaN();
    expect(h!.frames[0]!.intercept).toBeNaN();
    // The file as it was: its own numbers.
    const [real] = await readSeriesHeaders([phantomFiles()[0]!]);
    expect(real!.frames[0]).toMatchObject({ slope: 1, intercept: -1024 });
  });
});
