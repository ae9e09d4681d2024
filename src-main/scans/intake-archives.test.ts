// Archives in a drop: a zip inside a zip, a zip with no DICOM in it, and zips refused as a whole
// (entries that would land outside their folder, absurd declared sizes, entries holding more than
// they declare); and a drop that is canceled.
import { readdirSync, statSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IntakeResult } from '../../src-shared/scans.js';
import { AppError } from '../../src-shared/errors.js';
import { intake } from './intake.js';
import { PHANTOM_DIR, phantomFiles, tempFolders } from './scans.test-support.js';
import { declareSizes, renameEntry, writeZip } from './zip.test-support.js';

const { fresh } = tempFolders('s2m-intake-archives-');

async function run(paths: string[]): Promise<IntakeResult> {
  return (await intake(paths, { tempDir: fresh('work') })).result;
}

describe('intake of archives, and cancellation', () => {
  it('opens a zip inside a zip, but not archives nested deeper than two levels', async () => {
    const dir = fresh('nested');
    const inner = join(dir, 'inner.zip');
    await writeZip(
      inner,
      phantomFiles()
        .slice(0, 3)
        .map((f) => ({ name: basename(f), file: f })),
    );
    const outer = join(dir, 'outer.zip');
    await writeZip(outer, [{ name: 'export/inner.zip', file: inner }]);
    const r = await run([outer]);
    expect(r.series[0]!.fileCount).toBe(3);
    // Every folder unpacked is the user's alone, whatever the umask (a review found 0755 under a
    // private parent).
    if (process.platform !== 'win32') {
      const work = fresh('modes');
      await intake([outer], { tempDir: work });
      const folders = readdirSync(work, { recursive: true, withFileTypes: true }).filter((e) =>
        e.isDirectory(),
      );
      expect(folders.length).toBeGreaterThan(0);
      for (const f of folders)
        expect((statSync(join(f.parentPath, f.name)).mode & 0o777).toString(8), f.name).toBe('700');
    }
    const deepest = join(dir, 'deepest.zip');
    await writeZip(deepest, [{ name: 'outer.zip', file: outer }]);
    const deep = await run([deepest]);
    expect(deep.series).toEqual([]);
    expect(deep.skipped).toEqual([
      {
        path: `${deepest}/outer.zip/export/inner.zip`,
        reason: 'an archive inside archives nested too deeply',
      },
    ]);
  });

  it('leaves out a link stored in a zip, unfollowed, and reads the series beside it whole', async () => {
    // zip -y (and macOS's Compress) store a link as a link: its data is the name of its target. It
    // was unpacked as a 12-byte file, and the series refused for a "damaged" file (a review).
    const slices = phantomFiles().slice(0, 3);
    const zip = join(fresh('link'), 'with-link.zip');
    await writeZip(zip, [
      ...slices.map((f) => ({ name: `scan/${basename(f)}`, file: f })),
      { name: 'scan/first.dcm', data: Buffer.from(basename(slices[0]!)), mode: 0o120777 },
      { name: 'scan/outside', data: Buffer.from('/etc/passwd'), mode: 0o120777 },
    ]);
    const r = await run([zip]);
    expect(r.series).toHaveLength(1);
    expect(r.series[0]!.fileCount).toBe(3);
    // Three slices make no model, which is all that is said: no file of the series is "damaged".
    expect(r.problems.map((p) => p.code)).toEqual(['nothing-usable']);
    expect(JSON.stringify(r.series)).not.toMatch(/first\.dcm|damaged/);
    expect(
      r.skipped.filter((s) => s.reason === 'a link inside the archive, not followed').map((s) => s.path),
    ).toEqual([`${zip}/scan/first.dcm`, `${zip}/scan/outside`]);
  });

  it('stops when canceled', async () => {
    const ctl = new AbortController();
    ctl.abort();
    const err = await intake([PHANTOM_DIR], { tempDir: fresh('work'), signal: ctl.signal }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('canceled');
  });

  it('lists a zip with no DICOM in it, and finds nothing usable', async () => {
    const dir = fresh('zip-no-dicom');
    const zip = join(dir, 'photos.zip');
    await writeZip(zip, [
      { name: 'readme.txt', data: Buffer.from('hello') },
      {
        name: 'img/photo.png',
        data: Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), randomBytes(100)]),
      },
    ]);
    const r = await run([zip]);
    expect(r.series).toEqual([]);
    expect(r.skipped.map((s) => [s.path, s.reason])).toEqual([
      [`${zip}/readme.txt`, 'a text file, not DICOM'],
      [`${zip}/img/photo.png`, 'a PNG picture, not DICOM'],
    ]);
    expect(r.problems).toEqual([
      expect.objectContaining({
        code: 'nothing-usable',
        message: 'No DICOM images were found in what you dropped.',
      }),
    ]);
  });

  it('refuses a zip whose entries climb out with .. or are absolute', async () => {
    const dir = fresh('zip-traversal');
    for (const [name, evil] of [
      ['aa/bb/evil.dcm', '../../evil.dcm'.slice(0, 14)],
      ['xetc/passwd', '/etc/passwd'],
    ] as const) {
      const zip = join(dir, `${name.length}.zip`);
      await writeZip(zip, [
        { name: 'ok.dcm', file: phantomFiles()[0]! },
        { name, file: phantomFiles()[1]! },
      ]);
      await renameEntry(zip, name, evil.padEnd(name.length, 'x').slice(0, name.length));
      const outcome = await intake([zip], { tempDir: fresh('work') });
      expect(outcome.result.problems[0]).toMatchObject({
        severity: 'error',
        code: 'archive-refused',
        file: zip,
      });
      expect(outcome.result.problems[0]!.message).toMatch(/outside the archive's folder.*refused for safety/);
      // Refused as a whole: not even the harmless entry was unpacked.
      expect(outcome.result.series).toEqual([]);
    }
  });

  it('refuses a zip that declares an absurd size before unpacking anything', async () => {
    const dir = fresh('zip-bomb');
    const zip = join(dir, 'big.zip');
    await writeZip(
      zip,
      Array.from({ length: 20 }, (_, i) => ({ name: `s${i}.dcm`, data: Buffer.alloc(1000) })),
    );
    await declareSizes(zip, 0xfffffffe); // 20 x 4 GB
    const outcome = await intake([zip], { tempDir: fresh('work') });
    expect(outcome.result.problems[0]).toMatchObject({ code: 'archive-refused' });
    expect(outcome.result.problems[0]!.message).toMatch(/unpacks to 80 GiB, more than scan2mesh allows/);
    for (const d of outcome.tempDirs) expect(readdirSync(d, { recursive: true })).toEqual([]);
    expect(outcome.tempDirs).toHaveLength(1);
  });

  it('leaves out an entry that holds more than it declares, writing no more than declared', async () => {
    const dir = fresh('zip-liar');
    const zip = join(dir, 'liar.zip');
    await writeZip(zip, [{ name: 'a.dcm', data: Buffer.alloc(100_000) }]);
    await declareSizes(zip, 10);
    const r = (await intake([zip], { tempDir: fresh('work') })).result;
    expect(r.problems[0]).toMatchObject({ code: 'corrupt-file', file: `${zip}/a.dcm` });
    expect(r.problems[0]!.message).toBe(
      "a.dcm in the archive liar.zip is damaged (its packed bytes do not unpack whole) and was left out; the archive's other files were read.",
    );
  });

  it('reads the sound slices of a zip with one damaged entry, and names that one', async () => {
    const dir = fresh('zip-one-bad');
    const zip = join(dir, 'scan.zip');
    const slices = phantomFiles().slice(0, 6);
    await writeZip(
      zip,
      slices.map((f, k) => ({ name: `scan/${k}.dcm`, file: f })),
    );
    // One byte of the third slice's pixels changed in place: its size is right, its CRC-32 is not.
    const bytes = await readFile(zip);
    const third = bytes.indexOf('scan/2.dcm') + 'scan/2.dcm'.length + 50_000;
    bytes[third] = bytes[third]! ^ 0xff;
    await writeFile(zip, bytes);
    const r = (await intake([zip], { tempDir: fresh('work') })).result;
    expect(r.series[0]!.slices).toBe(5);
    const bad = r.problems.find((p) => p.code === 'corrupt-file');
    expect(bad).toMatchObject({ file: `${zip}/scan/2.dcm` });
    expect(bad!.message).toMatch(/^2\.dcm in the archive scan\.zip is damaged/);
    // What was unpacked of it still names its series, which says it is incomplete without it.
    expect(r.series[0]!.problems[0]).toMatchObject({
      code: 'damaged-files',
      message:
        '1 file of this series is damaged: 2.dcm. The scan is not complete without it; export the series again.',
    });
  });
});
