// What is sent is what was checked: a slice that changed between the drop and the upload (written
// to, replaced, or swapped for a link to some other file) is refused in words, in every way a
// series is packaged, instead of being sent with the checks of the file that was there before.
import {
  chmodSync,
  copyFileSync,
  linkSync,
  readFileSync,
  readdirSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PackageOptions } from './package-series.js';
import { ScanService } from './scan-service.js';
import { FIXTURES, phantomBySlice, tempFolders } from './scans.test-support.js';

const { fresh } = tempFolders('s2m-changed-');
const service = new ScanService({ tempDir: fresh('temp') });
afterAll(() => service.dispose());

const slices = phantomBySlice();

/** Eight real slices, copied (never linked: the test changes them), and the series intake made of them. */
async function droppedSeries(): Promise<{ folder: string; names: string[]; id: string }> {
  const folder = fresh('drop');
  const names = slices.slice(60, 68).map((f) => {
    const to = join(folder, basename(f));
    copyFileSync(f, to);
    return to;
  });
  const r = await service.intake([folder]);
  expect(r.series).toHaveLength(1);
  return { folder, names, id: r.series[0]!.id };
}

const WAYS: [string, Omit<PackageOptions, 'outDir'>][] = [
  ['a zip of the slices as they are', { deidentify: false }],
  ['a de-identified zip', { deidentify: true }],
  ['a gzipped stream', { deidentify: false, gzip: true }],
];

async function refusal(id: string, opts: Omit<PackageOptions, 'outDir'>): Promise<unknown> {
  const outDir = fresh('out');
  const err = await service.packageForUpload(id, { ...opts, outDir }).catch((e: unknown) => e);
  // Nothing of the package is left behind.
  expect(readdirSync(outDir)).toEqual([]);
  return err;
}

describe('a slice that changed after the drop', () => {
  it('is sent as it was looked at when nothing changed', async () => {
    const { id } = await droppedSeries();
    for (const [, opts] of WAYS) {
      const pkg = await service.packageForUpload(id, { ...opts, outDir: fresh('ok') });
      expect(pkg.bytes).toBeGreaterThan(0);
    }
  });

  it('is sent when only its metadata changed (a hard link made to it, its permissions)', async () => {
    // A backup tool linking the folder, or a virus scanner marking files, changes no byte.
    const { names, id } = await droppedSeries();
    linkSync(names[2]!, join(fresh('backup'), 'linked.dcm'));
    chmodSync(names[4]!, 0o600);
    const pkg = await service.packageForUpload(id, { deidentify: false, outDir: fresh('meta') });
    expect(pkg.bytes).toBeGreaterThan(0);
  });

  it('is refused when it was swapped for a link to another file', async () => {
    const { names, id } = await droppedSeries();
    // Another real DICOM file outside the dropped folder: without the check it would be sent.
    const outside = join(fresh('outside'), 'elsewhere.dcm');
    copyFileSync(slices[10]!, outside);
    renameSync(names[3]!, `${names[3]!}.gone`);
    symlinkSync(outside, names[3]!);
    for (const [way, opts] of WAYS) {
      const err = await refusal(id, opts);
      expect(err, way).toMatchObject({ code: 'bad-input' });
      expect((err as Error).message, way).toContain(
        `${basename(names[3]!)} changed after the scan was looked at`,
      );
    }
  });

  it('is refused when it was written to, even with the same size', async () => {
    const { names, id } = await droppedSeries();
    const bytes = readFileSync(names[5]!);
    // One byte of the pixel data changed, the size kept.
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
    writeFileSync(names[5]!, bytes);
    for (const [way, opts] of WAYS) {
      const err = await refusal(id, opts);
      expect(err, way).toMatchObject({ code: 'bad-input' });
      expect((err as Error).message, way).toContain(`${basename(names[5]!)} changed after the scan`);
    }
  });

  it('is refused in a multi-frame file replaced by another', async () => {
    const folder = fresh('mf');
    const file = join(folder, 'enhanced.dcm');
    copyFileSync(join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm'), file);
    const id = (await service.intake([folder])).series[0]!.id;
    const replacement = join(folder, 'new.tmp');
    copyFileSync(file, replacement);
    renameSync(replacement, file);
    for (const opts of [{ deidentify: false }, { deidentify: true }]) {
      const err = await refusal(id, opts);
      expect(err).toMatchObject({ code: 'bad-input' });
      expect((err as Error).message).toContain('enhanced.dcm changed after the scan was looked at');
    }
  });
});
