import { randomUUID } from 'node:crypto';
import { basename, dirname, resolve } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import type { SubmitJobsRequest } from '../../src-shared/jobs.js';
import { scanFileStem } from '../scans/scan-file-name.js';
import { isStagedDropName } from './staged-drops.js';
import type { ScanService } from '../scans/scan-service.js';
import type { NewJob, StoredConnection } from './job-record.js';

/** What a submission turns into: one job per series, named for the list and for the files it saves. */

export interface SubmitOverrides {
  /** Instead of the settings' template. */
  namingTemplate?: string;
  /** The {scan} name per series id, instead of the patient's name. */
  scanNames?: Record<string, string>;
}

export function newJobs(
  r: SubmitJobsRequest,
  batchId: string,
  conn: { profileId: string; profileName: string; connection?: StoredConnection },
  where: { outputDir: string; namingTemplate: string },
  scans: Pick<ScanService, 'series' | 'filesOf' | 'inputsOf'>,
  overrides: SubmitOverrides,
): NewJob[] {
  return r.seriesIds.map((seriesId, k) => {
    const summary = scans.series(seriesId);
    const files = scans.filesOf(seriesId);
    if (!summary || files.length === 0)
      throw new AppError('not-found', 'That scan is no longer open.', {
        action: 'Add the scan again, then submit.',
      });
    const job: NewJob = {
      id: randomUUID(),
      batchId,
      profileId: conn.profileId,
      profileName: conn.profileName,
      seriesId,
      // A scan sent de-identified is not named after its patient in the list or in file paths; the
      // {patient} field (opt-in, in the naming pattern) is the one way to put the name there.
      scanName:
        overrides.scanNames?.[seriesId] ??
        scanNameOf(r.deidentify ? '' : summary.patient.name, files, scans.inputsOf(seriesId)),
      seriesDescription: seriesNameOf(summary, r.deidentify, k),
      // What the user gave (a folder, a zip), not unpacked copies that vanish: enough to find the
      // series again under the same id after a restart, if its package has to be made again.
      // Absolute: the job may be resumed by a command run from another folder, or by the app.
      sourceFiles: scans.inputsOf(seriesId).map((p) => resolve(p)),
      meshes: r.meshes,
      deidentify: r.deidentify,
      ...(r.acceptBurnedIn ? { acceptBurnedIn: true } : {}),
      outputDir: where.outputDir,
      namingTemplate: where.namingTemplate,
    };
    if (where.namingTemplate.includes('{patient}')) {
      const patient = readableName(summary.patient.name);
      if (patient) job.patientName = patient;
    }
    if (conn.connection) job.connection = conn.connection;
    if (r.options) job.options = r.options;
    return job;
  });
}

/**
 * What the user calls the scan: the patient's name as DICOM writes it ("DOE^JANE"), else the file or
 * folder they gave. Files unpacked from an archive lie in the drop's temporary folder, named `a0`,
 * `a1`... afresh for every drop, so the archive's own name is used: every zip with its slices at its
 * root was named "a0", different patients' scans alike (a review).
 */
function scanNameOf(patientName: string, files: string[], inputs: string[]): string {
  const name = readableName(patientName);
  if (name) return name;
  const unpacked = new Set(files);
  const archive = inputs.length > 0 && inputs.every((i) => !unpacked.has(i)) ? inputs[0] : undefined;
  if (archive !== undefined) return scanFileStem(basename(archive)) || 'scan';
  const first = files[0] ?? 'scan';
  const stem = (f: string): string => basename(f).replace(/\.[^.]*$/, '');
  if (files.length === 1) return stem(first) || 'scan';
  const folder = basename(dirname(first));
  if (!isStagedDropName(folder)) return folder || 'scan';
  // Loose files dropped on web mode's page lie in its drop folder, named by a random id: the job was
  // named by that id (a review). Named by its first and last files instead.
  const names = files.map(stem).sort();
  return `${names[0]}–${names.at(-1)}`;
}

/**
 * The series as the list and the {series} field name it. Sent de-identified, by its place in the
 * submission: the description is free text that can name the patient ("CT HEAD DOE JANE"), and the
 * Series Number any digits (a review named a job "Series 99887766", a record number); the upload
 * carries neither (deid-values.ts sends the number as 1), so they stay out of file names too.
 */
function seriesNameOf(
  s: { seriesDescription: string; seriesNumber?: number | undefined; modality: string },
  deidentify: boolean,
  k: number,
): string {
  if (deidentify) return `Series ${k + 1}`;
  const numbered = s.seriesNumber !== undefined ? `Series ${s.seriesNumber}` : undefined;
  return s.seriesDescription.trim() || (numbered ?? (s.modality || 'Series'));
}

/** "DOE^JANE" as people write it: "DOE JANE". */
function readableName(dicomName: string): string {
  return dicomName.replace(/\^+/g, ' ').replace(/\s+/g, ' ').trim();
}
