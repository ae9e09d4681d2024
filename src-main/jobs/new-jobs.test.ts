// The names a job gets from its series: sent de-identified, never the Series Description (free text
// that can name the patient, "CT HEAD DOE JANE"), in the list or in the folders {series} makes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sanitizeFileNamePart } from '../../src-shared/job-spec.js';
import { DEFAULT_NAMING_TEMPLATE } from '../../src-shared/job-states.js';
import { ScanService } from '../scans/scan-service.js';
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
