import { realpath } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { fileNamePartWithSuffix, sanitizeFileNamePart } from '../../../src-shared/job-spec.js';
import type { IntakeResult, SeriesSummary } from '../../../src-shared/scans.js';
import { isUsable, unfitReasons } from '../../../src-shared/series-usable.js';
import { scanFileStem } from '../../scans/scan-file-name.js';
import type { ScanService } from '../../scans/scan-service.js';
import { oneLine } from '../terminal-text.js';
import type { SubmitFates } from './submit-fates.js';

/** One series of a given scan, to become one job. */
export interface Unit {
  scan: string;
  series: SeriesSummary;
  /** Folder under --out for this series' meshes. */
  dirName: string;
}

/** Reads every scan first, so that a typo in the last one fails before anything is sent. */
export async function findSeries(
  scans: string[],
  service: ScanService,
  io: { err: (text: string) => void },
  deidentify: boolean,
  fates: SubmitFates,
): Promise<Unit[]> {
  const units: Unit[] = [];
  const problems: string[] = [];
  // What is sent with warnings, and what of each scan is not sent: said before anything is.
  const notes: string[] = [];
  // Series given more than once, through copies in other folders.
  const say: string[] = [];
  // Whether a scan held series, none of which a model can be made of (rather than no DICOM at all).
  let unfitOnly = true;
  const usedNames = new Set<string>();
  // One folder or file named twice (`scan scan/`, or through a link) made two jobs of one scan.
  // Copies in other folders are other scans.
  const named = new Map<string, string>();
  for (const [i, scan] of scans.entries()) {
    const real = await realpath(scan).catch(() => resolve(scan));
    const before = named.get(real);
    if (before !== undefined) {
      io.err(`${oneLine(scan)}: left out: the same folder or file as ${oneLine(before)}, given again\n`);
      fates.scanEnds(i, 'left-out', `the same folder or file as ${before}, given again`);
      continue;
    }
    named.set(real, scan);
    let result: IntakeResult;
    let series: SeriesSummary[];
    let overall: string[];
    try {
      result = await service.intake([scan]);
      series = result.series;
      overall = result.problems
        .filter((p) => p.severity === 'error')
        .map((p) => oneLine(p.message.replace(/\.$/, '')));
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      problems.push(`${oneLine(scan)}: ${oneLine(why)}`);
      fates.scanEnds(i, 'refused', why);
      unfitOnly = false;
      continue;
    }
    // A series is sent only when its files are sound and a model can honestly be made of it.
    const usable = series.filter(isUsable);
    for (const s of series.filter((x) => !usable.includes(x))) {
      const problem = s.problems.find((p) => p.severity === 'error');
      const error = problem?.message;
      const reasons = unfitReasons(s, error ? [error] : []);
      // The file a problem was found in, as inspect shows it: the one to look at or leave out.
      const where = problem?.file ? ` (${oneLine(problem.file)})` : '';
      const why = [
        ...(error ? [oneLine(error) + where] : []),
        ...(reasons.length > 0
          ? ['no model can be made of it:', ...reasons.map((r) => `  - ${oneLine(r)}`)]
          : []),
      ];
      io.err(`${seriesLabel(scan, s)} left out: ${why.join('\n') || 'not usable'}\n`);
      fates.addSeries(i, {
        seriesId: s.id,
        series: s.seriesDescription || s.id,
        fate: 'left-out',
        reason: [...(error ? [error + where] : []), ...reasons].join('; ') || 'not usable',
      });
    }
    if (usable.length === 0) {
      if (series.length === 0) unfitOnly = false;
      const why = `no CT series a model can be made of${overall.length ? ` (${overall.join('; ')})` : ''}`;
      problems.push(`${oneLine(scan)}: ${why}`);
      fates.scanEnds(i, 'refused', why);
      continue;
    }
    notes.push(...notesOnSent(scan, usable, result));
    const scanName = scanBaseName(scan);
    usable.forEach((s, k) => {
      // The place before the description, kept whole however long the scan's name (the cut takes the description).
      let name =
        usable.length === 1
          ? scanName
          : `${fileNamePartWithSuffix(scanName, `-${k + 1}`)}${seriesPart(s, deidentify)}`;
      name = sanitizeFileNamePart(name) || `scan-${units.length + 1}`;
      let unique = name;
      for (let n = 2; usedNames.has(unique.toLowerCase()); n++)
        unique = fileNamePartWithSuffix(name, `-${n}`);
      usedNames.add(unique.toLowerCase());
      const same = units.find((u) => u.series.seriesUid !== '' && u.series.seriesUid === s.seriesUid);
      if (same) say.push(sameSeriesNote(scan, s, same));
      fates.addSeries(i, {
        seriesId: s.id,
        series: s.seriesDescription || s.id,
        fate: 'not-sent',
        folder: unique,
        ...(same ? { sameSeriesAs: same.scan } : {}),
      });
      units.push({ scan, series: s, dirName: unique });
    });
  }
  for (const n of say) io.err(n);
  if (problems.length > 0) {
    for (const p of problems) io.err(`scan2mesh: ${p}\n`);
    io.err(
      unfitOnly
        ? 'Nothing was submitted: no model can be made of these scans as they are; each reason above says why.\n'
        : 'Nothing was submitted. Give DICOM folders, zips of them or multi-frame .dcm files.\n',
    );
    return [];
  }
  for (const n of notes) io.err(n);
  return units;
}

/**
 * A copy of a series in another folder is another scan (README), sent as one; web mode flags such
 * copies and sends one. Said, so that a technician who gave one series twice by mistake sees it (a
 * review: one series, four jobs, no word).
 */
function sameSeriesNote(scan: string, s: SeriesSummary, first: Unit): string {
  return `${seriesLabel(scan, s)} is the same series (Series Instance UID) as ${seriesLabel(first.scan, first.series)} (folder ${oneLine(first.dirName)}); a copy in another folder is another scan, with a job of its own\n`;
}

/** Files left out of a scan that are listed one by one; inspect lists them all. */
const MAX_LISTED_LEFT_OUT = 20;

/**
 * What the user is told of a scan before its usable series are sent: each series' warnings (a gap
 * filled in from neighbouring slices, lossy compression...) and every file of the scan that is not
 * sent (damaged, unreadable or skipped). Nothing is left out unseen.
 */
function notesOnSent(scan: string, sent: SeriesSummary[], result: IntakeResult): string[] {
  const notes: string[] = [];
  for (const s of sent) {
    const warnings = s.problems.filter((p) => p.severity === 'warning');
    if (warnings.length === 0) continue;
    notes.push(
      `${seriesLabel(scan, s)} is sent with ${warnings.length === 1 ? 'this warning' : 'these warnings'}:\n`,
      ...warnings.map((p) => `  warning: ${oneLine(p.message)}\n`),
    );
  }
  const leftOut = [
    ...result.problems
      .filter((p) => p.severity !== 'info')
      .map((p) => `  ${p.severity}: ${oneLine(p.message)}${p.file ? ` (${oneLine(p.file)})` : ''}\n`),
    ...result.skipped.map((f) => `  skipped: ${oneLine(f.path)}: ${oneLine(f.reason)}\n`),
  ];
  if (leftOut.length > 0) {
    notes.push(
      `${oneLine(scan)}: left out of what is sent:\n`,
      ...leftOut.slice(0, MAX_LISTED_LEFT_OUT),
      ...(leftOut.length > MAX_LISTED_LEFT_OUT
        ? [
            `  and ${leftOut.length - MAX_LISTED_LEFT_OUT} more (scan2mesh inspect ${oneLine(scan)} lists them all)\n`,
          ]
        : []),
    );
  }
  return notes;
}

/** 'scan: series "BONE 1MM"', each part on one line whatever the file says (terminal-text.ts). */
function seriesLabel(scan: string, s: SeriesSummary): string {
  return `${oneLine(scan)}: series "${oneLine(s.seriesDescription || s.id)}"`;
}

/**
 * What tells apart the folders of one scan's series, after their place. Sent de-identified, nothing
 * more: the description is free text that can name the patient ("CT HEAD DOE JANE"), and the Series
 * Number any digits (a review found "-series-99887766" in an output path).
 */
function seriesPart(s: SeriesSummary, deidentify: boolean): string {
  if (deidentify) return '';
  return s.seriesDescription ? `-${s.seriesDescription}` : '';
}

/** "…/Patient 7/" -> "Patient 7"; "scan.zip" -> "scan"; "vol.dcm.gz" -> "vol". */
function scanBaseName(path: string): string {
  const base = scanFileStem(basename(path.replace(/[\\/]+$/, '')));
  return sanitizeFileNamePart(base) || 'scan';
}
