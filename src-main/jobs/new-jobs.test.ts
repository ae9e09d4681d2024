// The names a job gets from its series: sent de-identified, never the Series Description (free text
// that can name the patient, "CT HEAD DOE JANE"), in the list or in the folders {series} makes.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { sanitizeFileNamePart } from '../../src-shared/job-spec.js';
import { DEFAULT_NAMING_TEMPLATE } from '../../src-shared/job-states.js';
import { ScanService } from '../scans/scan-service.js';
import { PHANTOM_DIR, phantomFiles } from '../scans/scans.test-support.js';
import { writeZip } from '../scans/zip.test-support.js';
import { jobOutputPath } from '../settings/output-naming.js';
import { DICOM } from './jobs.test-support.js';
import { newJobs } from './new-jobs.js';

async function jobsOf(deidentify: boolean) {
  const scans = new ScanService({ tempDir: mkdtempSync(join(tmpdir(), 'new-jobs-')) });
  const { series } = await scans.intake([join(DICOM, 'dicomdir')]);
  const described = series.filter((s) => s.seriesDescription.trim() !== '');
  expect(described.length).toBeGreaterThan(0);
  const jobs = newJobs(
    {
      seriesIds: described.map((s) => s.id),
      meshes: [{ structures: ['skull'], extension: '.stl' }],
      deidentify,
    },
    'b1',
    { profileId: 'local', profileName: 'Local engine' },
    { outputDir: '/out', namingTemplate: DEFAULT_NAMING_TEMPLATE },
    scans,
    {},
  );
  const paths = jobs.map((j) =>
    jobOutputPath({ ...j, createdAt: '2026-01-01T00:00:00Z' }, { structures: ['skull'], extension: '.stl' }),
  );
  return { described, jobs, paths };
}

describe('newJobs, series names', () => {
  it('names a de-identified job by its place, not its description or its number (any digits)', async () => {
    const { described, jobs, paths } = await jobsOf(true);
    expect(described.some((s, i) => s.seriesNumber !== undefined && s.seriesNumber !== i + 1)).toBe(true);
    for (const [i, j] of jobs.entries()) {
      const s = described[i]!;
      expect(j.seriesDescription).toBe(`Series ${i + 1}`);
      expect(paths[i]).not.toContain(sanitizeFileNamePart(s.seriesDescription));
    }
  });

  it('keeps the description of a job sent as it is', async () => {
    const { described, jobs, paths } = await jobsOf(false);
    for (const [i, j] of jobs.entries()) {
      expect(j.seriesDescription).toBe(described[i]!.seriesDescription.trim());
      expect(paths[i]).toContain(sanitizeFileNamePart(j.seriesDescription));
    }
  });
});

// A review: jobs submitted with paths relative to where the command ran, resumed by a command run
// elsewhere (or by the app), failed as "no longer where they were", the files untouched.
describe('newJobs, where the scan is', () => {
  it('records the scan by absolute paths, which find the same series from anywhere', async () => {
    const given = relative(process.cwd(), PHANTOM_DIR);
    expect(isAbsolute(given)).toBe(false);
    const scans = new ScanService({ tempDir: mkdtempSync(join(tmpdir(), 'new-jobs-')) });
    const { series } = await scans.intake([given]);
    const [job] = newJobs(
      {
        seriesIds: [series[0]!.id],
        meshes: [{ structures: ['skull'], extension: '.stl' }],
        deidentify: false,
      },
      'b1',
      { profileId: 'local', profileName: 'Local engine' },
      { outputDir: '/out', namingTemplate: DEFAULT_NAMING_TEMPLATE },
      scans,
      {},
    );
    expect(job!.sourceFiles.length).toBeGreaterThan(0);
    expect(job!.sourceFiles.every((f) => isAbsolute(f) && f.startsWith(PHANTOM_DIR))).toBe(true);
    const again = new ScanService({ tempDir: mkdtempSync(join(tmpdir(), 'new-jobs-')) });
    const read = await again.intake(job!.sourceFiles);
    expect(read.series.map((s) => s.id)).toEqual([series[0]!.id]);
    await scans.dispose();
    await again.dispose();
  });
});

describe('newJobs, scan names of archives', () => {
  // A zip with its slices at its root was named after the drop's temporary unpack folder, "a0", for
  // every drop: different patients' scans all alike (a review). The user knows the archive's name.
  it('names a de-identified scan from an archive after the archive, whatever kind or nesting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'new-jobs-archives-'));
    const slices = phantomFiles().slice(0, 3);
    const flat = join(dir, 'patient7.zip');
    await writeZip(
      flat,
      slices.map((f) => ({ name: basename(f), file: f })),
    );
    const inFolder = join(dir, 'patient8.zip');
    await writeZip(
      inFolder,
      slices.map((f) => ({ name: `export/DICOM/${basename(f)}`, file: f })),
    );
    const nested = join(dir, 'outer 9.zip');
    await writeZip(nested, [{ name: 'inner.zip', file: flat }]);
    const gz = join(dir, 'volume10.dcm.gz');
    writeFileSync(gz, gzipSync(readFileSync(slices[0]!)));
    const zipGz = join(dir, 'patient11.zip.gz');
    writeFileSync(zipGz, gzipSync(readFileSync(flat)));
    const expected = ['patient7', 'patient8', 'outer 9', 'volume10', 'patient11'];
    const names: string[] = [];
    // One drop each (the same slices in one drop are one series, sent once).
    for (const path of [flat, inFolder, nested, gz, zipGz]) names.push(...(await scanNames([path])));
    expect(names).toEqual(expected);
  });

  // A review: loose files dropped on web mode's page were named after its drop folder, a random id.
  it("names loose files in web mode's drop folder by their first and last names, a folder by its name", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'new-jobs-loose-'));
    const drop = join(dir, randomUUID());
    const folder = join(dir, 'patient12');
    for (const d of [drop, folder]) mkdirSync(d);
    const names = ['slice007.dcm', 'slice008.dcm', 'slice009.dcm'];
    phantomFiles()
      .slice(0, 3)
      .forEach((f, i) => {
        copyFileSync(f, join(drop, names[i]!));
        copyFileSync(f, join(folder, names[i]!));
      });
    expect(await scanNames(names.map((n) => join(drop, n)))).toEqual(['slice007–slice009']);
    expect(await scanNames(names.map((n) => join(folder, n)))).toEqual(['patient12']);
  });
});

async function scanNames(paths: string[]): Promise<string[]> {
  const scans = new ScanService({ tempDir: mkdtempSync(join(tmpdir(), 'new-jobs-work-')) });
  const { series } = await scans.intake(paths);
  return newJobs(
    {
      seriesIds: series.map((s) => s.id),
      meshes: [{ structures: ['skull'], extension: '.stl' }],
      deidentify: true,
    },
    'b1',
    { profileId: 'local', profileName: 'Local engine' },
    { outputDir: '/out', namingTemplate: DEFAULT_NAMING_TEMPLATE },
    scans,
    {},
  ).map((j) => j.scanName);
}
