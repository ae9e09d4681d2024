import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unfitReasons } from '../../src-shared/series-usable.js';
import { intake } from './intake.js';
import {
  evenText,
  patchElement,
  phantomBySlice,
  phantomFiles,
  sameLength,
  withElements,
} from './scans.test-support.js';
import { readSeriesHeaders, volumeFromHeaders } from './volume-reader.js';

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

/**
 * An explicit-VR Modality LUT Sequence of one item: a table of `entries` 16-bit values from stored
 * value `first` (here stored + 1000: not what the file's rescale says), typed HU.
 */
function modalityLut(entries: number, first: number): Buffer {
  const element = (group: number, el: number, vr: string, value: Buffer): Buffer => {
    const long = vr === 'OW';
    const head = Buffer.alloc(long ? 12 : 8);
    head.writeUInt16LE(group, 0);
    head.writeUInt16LE(el, 2);
    head.write(vr, 4, 'latin1');
    if (long) head.writeUInt32LE(value.length, 8);
    else head.writeUInt16LE(value.length, 6);
    return Buffer.concat([head, value]);
  };
  const descriptor = Buffer.alloc(6);
  descriptor.writeUInt16LE(entries, 0);
  descriptor.writeUInt16LE(first, 2);
  descriptor.writeUInt16LE(16, 4);
  const data = Buffer.alloc(entries * 2);
  for (let i = 0; i < entries; i++) data.writeUInt16LE((first + i + 1000) & 0xffff, i * 2);
  const body = Buffer.concat([
    element(0x0028, 0x3002, 'US', descriptor),
    element(0x0028, 0x3004, 'LO', evenText('HU')),
    element(0x0028, 0x3006, 'OW', data),
  ]);
  const item = Buffer.alloc(8);
  item.writeUInt16LE(0xfffe, 0);
  item.writeUInt16LE(0xe000, 2);
  item.writeUInt32LE(body.length, 4);
  return Buffer.concat([item, body]);
}

describe('stored values mapped by a table (Modality LUT Sequence) rather than a rescale', () => {
  it('the header says so, and the series is refused in words by the check, the drop and the engine', async () => {
    // Real phantom slices; three of them map their values through a table as well as the rescale,
    // which the CT Image module does not allow and which a reader of the rescale alone misreads.
    const files = phantomBySlice();
    const folder = join(dir, 'three-with-a-table');
    mkdirSync(folder);
    const edited = new Set([files[10], files[11], files[12]]);
    const written = files.map((f) => {
      const bytes = readFileSync(f);
      const out = join(folder, basename(f));
      const add = [{ tag: 'x00283000', vr: 'SQ', value: modalityLut(4096, 0) }];
      writeFileSync(out, edited.has(f) ? withElements(bytes, add) : bytes);
      return out;
    });
    const headers = await readSeriesHeaders(written);
    expect(headers.filter((h) => h.modalityLut).map((h) => basename(h.path))).toEqual(
      [...edited].map((f) => basename(f!)),
    );

    const words =
      '3 of the 140 slices do not state their density scale by Rescale Slope and Intercept, as CT images do: they map their stored values through a lookup table (Modality LUT Sequence), which scan2mesh does not apply, so bone and teeth could not be told apart by their density. Export the scan again as standard CT images.';
    const { result } = await intake([folder], { tempDir: join(dir, 'work') });
    expect(result.series).toHaveLength(1);
    expect(unfitReasons(result.series[0]!, [])).toEqual([words]);
    await expect(volumeFromHeaders(headers, undefined, { requireFit: true })).rejects.toThrow(words);

    // The same slices without the table: fit.
    const plain = await intake([phantomFiles()[0]!.replace(/[^/]+$/, '')], { tempDir: join(dir, 'work') });
    expect(unfitReasons(plain.result.series[0]!, [])).toEqual([]);
  });
});
