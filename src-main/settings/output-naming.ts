import { isAbsolute, join } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import { sanitizeFileNamePart } from '../../src-shared/job-spec.js';
import { NAMING_FIELDS } from '../../src-shared/jobs.js';

type NamingField = (typeof NAMING_FIELDS)[number];
type NamingValues = Record<NamingField, string> & { structuresList: string[] };

const FIELD = /\{([^{}]*)\}/g;

/** Null when the template can name files, else what is wrong with it, in words for the settings form. */
export function checkNamingTemplate(template: string): string | null {
  const t = template.trim();
  if (!t) return 'The file name pattern is empty.';
  if (t.length > 300) return 'The file name pattern is too long (300 characters at most).';
  if (isAbsolute(t) || /^[A-Za-z]:/.test(t) || t.startsWith('/') || t.startsWith('\\'))
    return 'The file name pattern must be relative to the output folder (no leading / or drive letter).';
  const segments = t.split(/[\\/]/);
  if (segments.some((s) => s.trim() === '..' || s.trim() === '.'))
    return 'The file name pattern must not contain "." or ".." folders.';
  if (segments.some((s) => s.trim() === '')) return 'The file name pattern has an empty folder name ("//").';
  for (const m of t.matchAll(FIELD)) {
    if (!(NAMING_FIELDS as readonly string[]).includes(m[1] as string))
      return `The file name pattern has an unknown field {${m[1]}}; the fields are ${NAMING_FIELDS.map((f) => `{${f}}`).join(', ')}.`;
  }
  if (/[{}]/.test(t.replace(FIELD, ''))) return 'The file name pattern has an unmatched { or }.';
  if (!t.includes('{structures}'))
    return 'The file name pattern must contain {structures}, or the meshes of one job would get the same name.';
  if (!t.endsWith('{ext}')) return 'The file name pattern must end with {ext} (the mesh file extension).';
  return null;
}

/** What names a job's meshes: the fields of a job the file name pattern can use. */
interface NamedJob {
  outputDir: string;
  namingTemplate: string;
  scanName: string;
  seriesDescription: string;
  /** ISO time; {date} is its day. */
  createdAt: string;
  remoteJobId?: string;
  patientName?: string;
}

/** Where a job's mesh goes: its template filled in with the job's own values. */
export function jobOutputPath(job: NamedJob, output: { structures: string[]; extension: string }): string {
  return outputPath(job.outputDir, job.namingTemplate, {
    scan: job.scanName,
    series: job.seriesDescription,
    structures: output.structures.join('+'),
    structuresList: output.structures,
    ext: output.extension,
    date: job.createdAt.slice(0, 10),
    jobId: job.remoteJobId ?? '',
    // Opt-in: stored only for jobs whose pattern has {patient} (see JobManager.submit).
    patient: job.patientName || job.scanName,
  });
}

/**
 * The output path of one mesh: the template filled in, each folder and file name made safe for every
 * file system (a patient name with a slash becomes one folder, not two), under `outputDir`.
 */
export function outputPath(outputDir: string, template: string, values: NamingValues): string {
  const problem = checkNamingTemplate(template);
  if (problem)
    throw new AppError('bad-input', problem, { action: 'Fix the file name pattern in the settings.' });
  const fill = (segment: string): string =>
    segment.replace(FIELD, (_, name: NamingField) => {
      if (name === 'structures')
        return values.structuresList.map(sanitizeFileNamePart).filter(Boolean).join('+') || 'mesh';
      if (name === 'ext') return values.ext;
      return sanitizeFileNamePart(values[name]) || name;
    });
  const segments = template
    .trim()
    .split(/[\\/]/)
    .map((s) => sanitizeFileNamePart(fill(s.trim())) || '_');
  return join(outputDir, ...segments);
}
