import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src-shared/errors.js';
import { SlicePreviewSchema, type SeriesSummary } from '../../src-shared/scans.js';
import { createLogger } from '../logging/logger.js';
import { readLogs } from '../logging/log-files.test-support.js';
import { histogramWindow } from './preview.js';
import { ScanService } from './scan-service.js';
import {
  FIXTURES,
  PHANTOM_DIR,
  copyClaimingSyntax,
  linkOrCopy,
  phantomBySlice,
  phantomFiles,
  tempFolders,
} from './scans.test-support.js';
import { writeZip, zipEntries } from './zip.test-support.js';
import { readVolume } from './volume-reader.js';
import type { Volume } from './volume.js';

// Removed after the service is disposed: vitest runs after-all hooks last-registered first.
const { root, fresh } = tempFolders('s2m-service-');
const logFile = join(root, 'scans.log');
const logger = createLogger({ file: logFile, level: 'debug' });
const service = new ScanService({ tempDir: fresh('temp'), logger });
let phantom: SeriesSummary;
/** 24 neighbouring phantom slices: real data, small enough to package quickly many times. */
let slab: SeriesSummary;
let slabFiles: string[];
let volume: Volume;

beforeAll(async () => {
  const r = await service.intake([
    PHANTOM_DIR,
    join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm'),
  ]);
  phantom = r.series.find((s) => s.slices === 140)!;
  const slabDir = fresh('slab');
  slabFiles = phantomBySlice().slice(58, 82);
  for (const f of slabFiles) linkOrCopy(f, join(slabDir, basename(f)));
  slab = (await service.intake([slabDir])).series[0]!;
  expect(slab).toMatchObject({ slices: 24, problems: [] });
  volume = await readVolume(phantomFiles());
});
afterAll(async () => {
  await service.dispose();
});

describe('ScanService basics', () => {
  it('remembers series by id and lists their files in slice order', () => {
    expect(service.series(phantom.id)).toEqual(phantom);
    const files = service.filesOf(phantom.id);
    expect(files).toHaveLength(140);
    expect(new Set(files)).toEqual(new Set(phantomFiles()));
    expect(service.series('nope')).toBeUndefined();
    expect(service.filesOf('nope')).toEqual([]);
  });

  it('never writes patient data to its log', async () => {
    await logger.flush();
    const log = readLogs(logFile);
    expect(log).toMatch(/intake done/);
    for (const v of ['HEAD', 'PLASTIC', 'ct-head-phantom', 'Perfusion']) expect(log).not.toContain(v);
  });
});

describe('packageForUpload', () => {
  it('zips the slice files in slice order, unchanged, as .zip', async () => {
    const progress: [number, number][] = [];
    const out = await service.packageForUpload(slab.id, {
      deidentify: false,
      outDir: fresh('zip'),
      onProgress: (d, t) => progress.push([d, t]),
    });
    expect(out.extension).toBe('.zip');
    expect(out.path).toMatch(/scan-[0-9a-f]{16}\.zip$/);
    expect(out.bytes).toBe(readFileSync(out.path).length);
    const entries = await zipEntries(readFileSync(out.path));
    const files = service.filesOf(slab.id);
    expect(entries.map((e) => e.name)).toEqual(
      files.map((f, k) => `slice-${String(k + 1).padStart(5, '0')}-${basename(f)}.dcm`),
    );
    // Slice order, whatever the names.
    expect(files.map((f) => basename(f))).toEqual(slabFiles.map((f) => basename(f)));
    entries.forEach((e, k) => expect(e.data.equals(readFileSync(files[k]!))).toBe(true));
    expect(entries.every((e) => e.compressed)).toBe(true);
    // Progress rises to the total, in source bytes.
    expect(progress.at(-1)).toEqual([slab.totalBytes, slab.totalBytes]);
    expect(progress.every(([d], i) => i === 0 || d >= progress[i - 1]![0])).toBe(true);
    expect(readdirSync(join(out.path, '..'))).toEqual([out.path.split('/').pop()]);
  });

  it('gzips a zip of stored slices as .zip.gz, and sends a multi-frame file as .dcm or .dcm.gz', async () => {
    const gz = await service.packageForUpload(slab.id, {
      deidentify: false,
      gzip: true,
      outDir: fresh('gz'),
    });
    expect(gz.extension).toBe('.zip.gz');
    const entries = await zipEntries(gunzipSync(readFileSync(gz.path)));
    expect(entries).toHaveLength(24);
    expect(entries.some((e) => e.compressed)).toBe(false);

    const mf = (await service.intake([join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm')]))
      .series[0]!;
    expect(mf.multiFrame).toBe(true);
    const source = readFileSync(join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm'));
    const dcm = await service.packageForUpload(mf.id, { deidentify: false, outDir: fresh('dcm') });
    expect(dcm.extension).toBe('.dcm');
    expect(readFileSync(dcm.path).equals(source)).toBe(true);
    const dcmGz = await service.packageForUpload(mf.id, {
      deidentify: false,
      gzip: true,
      outDir: fresh('dcmgz'),
    });
    expect(dcmGz.extension).toBe('.dcm.gz');
    expect(gunzipSync(readFileSync(dcmGz.path)).equals(source)).toBe(true);
  });

  it('stops when canceled and leaves no partial file', async () => {
    const outDir = fresh('cancel');
    const ctl = new AbortController();
    const err = await service
      .packageForUpload(slab.id, {
        deidentify: true,
        outDir,
        signal: ctl.signal,
        onProgress: (done) => {
          if (done > 3_000_000) ctl.abort();
        },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('canceled');
    expect(readdirSync(outDir)).toEqual([]);
  });

  it('refuses a series with errors, and an unknown id', async () => {
    const bad = (await service.intake([join(FIXTURES, 'bad', 'secondary-capture-rgb.dcm')])).series[0]!;
    const err = (await service
      .packageForUpload(bad.id, { deidentify: false, outDir: fresh('bad') })
      .catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe('bad-input');
    expect(err.message).toMatch(/cannot be sent: These are colour pictures/);
    const gone = (await service
      .packageForUpload('0000', { deidentify: false, outDir: fresh('x') })
      .catch((e: unknown) => e)) as AppError;
    expect(gone.code).toBe('not-found');
  });
});

describe('preview', () => {
  const grey = (v: number, window: number, level: number): number =>
    Math.min(255, Math.max(0, Math.round((v - (level - window / 2)) * (255 / window))));
  const voxel = (i: number, j: number, k: number): number => volume.data[i + j * 512 + k * 512 * 512]!;

  it('shows an axial slice with the window of the file', async () => {
    const p = await service.preview({ seriesId: phantom.id, plane: 'axial', index: 70 });
    expect(SlicePreviewSchema.parse(p)).toEqual(p);
    expect(p).toMatchObject({
      plane: 'axial',
      index: 70,
      count: 140,
      width: 512,
      height: 512,
      window: 2500,
      level: 900,
    });
    expect(p.pixelSpacing).toEqual([0.451171875, 0.451171875]);
    const px = Buffer.from(p.pixels, 'base64');
    expect(px.length).toBe(512 * 512);
    for (const [i, j] of [
      [256, 256],
      [100, 300],
      [0, 0],
      [400, 120],
    ] as const) {
      expect(px[i + j * 512]).toBe(grey(voxel(i, j, 70), 2500, 900));
    }
    expect(new Set(px).size).toBeGreaterThan(50); // an image, not a flat grey
  });

  it('shows the middle sagittal and coronal reformats, head end up', async () => {
    const sag = await service.preview({ seriesId: phantom.id, plane: 'sagittal' });
    expect(sag).toMatchObject({ index: 256, count: 512, width: 512, height: 140 });
    expect(sag.pixelSpacing[0]).toBeCloseTo(0.451171875, 9);
    expect(sag.pixelSpacing[1]).toBeCloseTo(1, 6);
    const s = Buffer.from(sag.pixels, 'base64');
    // Row 0 is the most superior slice (the last along +z).
    expect(s[0 * 512 + 300]).toBe(grey(voxel(256, 300, 139), 2500, 900));
    expect(s[139 * 512 + 200]).toBe(grey(voxel(256, 200, 0), 2500, 900));
    const cor = await service.preview({ seriesId: phantom.id, plane: 'coronal', window: 400, level: 40 });
    expect(cor).toMatchObject({ index: 256, width: 512, height: 140, window: 400, level: 40 });
    const c = Buffer.from(cor.pixels, 'base64');
    expect(c[10 * 512 + 250]).toBe(grey(voxel(250, 256, 129), 400, 40));
  });

  it('takes the window from the histogram when the file gives none', () => {
    const wl = histogramWindow(volume);
    // The phantom spans air (-1024 HU) to bone; the window covers that range.
    expect(wl.level - wl.window / 2).toBeLessThanOrEqual(-1000);
    expect(wl.level + wl.window / 2).toBeGreaterThan(500);
  });

  it('says clearly when there is no such slice or no preview', async () => {
    const err = (await service
      .preview({ seriesId: phantom.id, plane: 'axial', index: 140 })
      .catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe('bad-request');
    expect(err.message).toMatch(/no axial slice 140; this scan has 140/);
    const odd = copyClaimingSyntax(
      join(FIXTURES, 'transfer-syntax', 'mr-ts-j2k-lossless.dcm'),
      join(fresh('odd'), 'x.dcm'),
    );
    const j2k = (await service.intake([odd])).series[0]!;
    const none = (await service
      .preview({ seriesId: j2k.id, plane: 'axial' })
      .catch((e: unknown) => e)) as AppError;
    expect(none.code).toBe('bad-input');
  });

  it('previews a compressed multi-frame file', async () => {
    const rle = (await service.intake([join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-rle.dcm')]))
      .series[0]!;
    const p = await service.preview({ seriesId: rle.id, plane: 'axial', index: 1 });
    expect(p).toMatchObject({ width: 512, height: 512, count: 2, window: 102, level: 49 });
  });
});

describe('finding a series again', () => {
  it('gives the files or archives to read again for the same id, and says when a file is gone', async () => {
    const dir = fresh('again');
    const zip = join(dir, 'scan.zip');
    await zipOfSlices(zip);
    const s = new ScanService({ tempDir: join(fresh('t'), 'not', 'yet', 'made') });
    const first = (await s.intake([zip])).series[0]!;
    const inputs = s.inputsOf(first.id);
    expect(inputs).toEqual([zip]);
    await s.dispose(); // as after a restart
    const again = (await s.intake(inputs)).series[0]!;
    expect(again.id).toBe(first.id);
    // A folder's series is found again from its own files.
    const folder = (await s.intake([PHANTOM_DIR])).series[0]!;
    expect(new Set(s.inputsOf(folder.id))).toEqual(new Set(phantomFiles()));
    expect((await s.intake(s.inputsOf(folder.id))).series[0]!.id).toBe(folder.id);
    // Unpacked copies vanish with dispose(); packaging then says so plainly.
    const files = s.filesOf(again.id);
    rmSync(files[5]!);
    const err = (await s
      .packageForUpload(again.id, { deidentify: false, outDir: fresh('gone') })
      .catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe('bad-input');
    expect(err.message).toMatch(/no longer where it was/);
    await s.dispose();
  });

  it("says of web mode's copy of a dropped scan, gone, to drop the scan again", async () => {
    // The user never saw where web mode put its copy: "put the scan back where it was" cannot be done.
    const scan = join(fresh('data'), 'staging', randomUUID(), 'scan');
    cpSync(PHANTOM_DIR, scan, { recursive: true });
    const s = new ScanService({ tempDir: fresh('drop-temp') });
    const series = (await s.intake([scan])).series[0]!;
    rmSync(s.filesOf(series.id)[7]!);
    const err = (await s
      .packageForUpload(series.id, { deidentify: false, outDir: fresh('drop-gone') })
      .catch((e: unknown) => e)) as AppError;
    expect(err.message).toMatch(/copy of this scan made when it was dropped onto the page is gone/);
    expect(err.action).toBe('Drop the scan onto the page again and submit it.');
    await s.dispose();
  });
});

describe('dispose', () => {
  it('removes unpacked archives', async () => {
    const s = new ScanService({ tempDir: fresh('disposable') });
    const dir = fresh('gz');
    writeFileSync(join(dir, 'mr.dcm.gz'), gzipSync(readFileSync(join(FIXTURES, 'mr', 'mr-small-64x64.dcm'))));
    const r = await s.intake([dir]);
    const file = s.filesOf(r.series[0]!.id)[0]!;
    expect(existsSync(file)).toBe(true);
    await s.dispose();
    expect(existsSync(file)).toBe(false);
  });
});

describe('unpacked copies', () => {
  it('keeps one copy per series while it is listed, and none once it is forgotten or needs none', async () => {
    const temp = fresh('copies');
    const s = new ScanService({ tempDir: temp });
    const copies = (): string[] => readdirSync(temp).filter((n) => n.startsWith('scan2mesh-scans-'));
    const dir = fresh('zipped');
    const zip = join(dir, 'scan.zip');
    await zipOfSlices(zip);
    // A folder of slices is read where it is: no copy is kept.
    await s.intake([PHANTOM_DIR]);
    expect(copies()).toEqual([]);
    // The same zip dropped three times: the newest copy serves, the earlier ones go.
    let id = '';
    for (let i = 0; i < 3; i++) id = (await s.intake([zip])).series[0]!.id;
    expect(copies()).toHaveLength(1);
    const [first] = s.filesOf(id);
    expect(first?.startsWith(join(temp, copies()[0]!))).toBe(true);
    // A package being written keeps its copy, even when the series is forgotten meanwhile.
    const packing = s.packageForUpload(id, { deidentify: false, outDir: fresh('packing') });
    const forgotten = s.forget([id]);
    expect((await packing).bytes).toBeGreaterThan(0);
    await forgotten;
    expect(copies()).toEqual([]);
    expect(s.series(id)).toBeUndefined();
    await s.dispose();
  });

  it('keeps the copy an intake is filling, whatever is forgotten meanwhile', async () => {
    const temp = fresh('filling');
    const s = new ScanService({ tempDir: temp });
    const zip = join(fresh('zip-filling'), 'scan.zip');
    await zipOfSlices(zip);
    const reading = s.intake([zip]);
    // Once the intake writes in its folder (the zip is being unpacked), a forget() lets go of every
    // folder nobody uses.
    const copy = (): string | undefined => readdirSync(temp).find((n) => n.startsWith('scan2mesh-scans-'));
    for (;;) {
      const c = copy();
      if (c && readdirSync(join(temp, c)).length > 0) break;
      await new Promise((r) => setImmediate(r));
    }
    await s.forget(['no-such-series']);
    const [series] = (await reading).series;
    expect(series?.slices).toBe(12);
    expect(s.filesOf(series!.id).every((f) => existsSync(f))).toBe(true);
    // Still the service's: it goes with dispose().
    await s.dispose();
    expect(copy()).toBeUndefined();
  });
});

/** A zip of the first 12 phantom slices, under DICOM/ as an export writes them. */
function zipOfSlices(zip: string): Promise<void> {
  return writeZip(
    zip,
    phantomFiles()
      .slice(0, 12)
      .map((f) => ({ name: `DICOM/${basename(f)}`, file: f })),
  );
}
