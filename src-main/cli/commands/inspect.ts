import type { Command } from 'commander';
import type { IntakeResult, ScanProblem, SeriesSummary } from '../../../src-shared/scans.js';
import { formatBytes } from '../../../src-shared/format-bytes.js';
import { intake } from '../../scans/intake.js';
import { isUsable, unfitReasons } from '../../../src-shared/series-usable.js';
import { EXIT } from '../exit-codes.js';
import { createOwnedTempFolder } from '../../platform/temp-folders.js';
import { safeLines, terminal } from '../terminal-text.js';
import { checkScanPaths } from '../folder-checks.js';
import { givenNotDropped } from '../cli-wording.js';

/**
 * Looks at files, folders and zips and reports the series found and every problem. Patient data
 * is printed because the person at the terminal is shown it, as in the app; it is never logged.
 * Exit code 2 when nothing usable was found: no series whose files are sound and of which a model
 * can be made (the same test as submit's and the app's).
 *
 * It runs intake itself rather than through ScanService: the service also previews and packages,
 * and loading that code (codecs, de-identification tables, zip writing) cost inspect more start-up
 * time than reading the headers.
 */
async function runInspect(
  paths: string[],
  opts: { json?: boolean },
  write: (text: string) => void = terminal.out,
): Promise<number> {
  // Dropped archives are unpacked under here; it goes when the command ends, also on Ctrl+C or a kill
  // signal (temp-folders.ts), and what a SIGKILL leaves is swept by the next command.
  const work = await createOwnedTempFolder('scan2mesh-scans-');
  try {
    const { result } = await intake(paths, { tempDir: work.path });
    write(opts.json ? `${JSON.stringify(result, null, 2)}\n` : formatIntake(result));
    return result.series.some(isUsable) ? EXIT.ok : EXIT.usage;
  } finally {
    await work.remove();
  }
}

function formatIntake(r: IntakeResult): string {
  const lines: string[] = [];
  const n = r.series.length;
  lines.push(n === 0 ? 'No DICOM series found.' : `Found ${n} series${n > 1 ? ' (largest first)' : ''}.`);
  r.series.forEach((s, i) => {
    lines.push('', ...seriesBlock(s, i + 1, n));
  });
  if (r.skipped.length > 0) {
    lines.push('', `Skipped ${r.skipped.length} file${r.skipped.length > 1 ? 's' : ''}:`);
    for (const f of r.skipped) lines.push(`  ${f.path}`, `      ${f.reason}`);
  }
  if (r.problems.length > 0) {
    lines.push('', 'Overall:');
    for (const p of r.problems) lines.push(...problemLines(p, '  '));
  }
  // Names, descriptions and file names come from the files: each stays on its line (terminal-text.ts).
  return `${givenNotDropped(safeLines(lines))}\n`;
}

function seriesBlock(s: SeriesSummary, k: number, n: number): string[] {
  const title = s.seriesDescription || '(no description)';
  const number = s.seriesNumber !== undefined ? `, series number ${s.seriesNumber}` : '';
  const verdict = isUsable(s) ? 'usable' : 'NOT usable';
  const mm = (v: number): string => `${+v.toFixed(3)}`;
  const out = [
    `Series ${k} of ${n}: ${title}${number} — ${verdict}`,
    `  id           ${s.id}`,
    `  patient      ${s.patient.name || '(no name)'}, id ${s.patient.id || '(none)'}, born ${formatDate(s.patient.birthDate)}`,
    `  study        ${formatDate(s.study.date)}  ${s.study.description || '(no description)'}`,
    `  scanner      ${s.modality || '?'}${s.manufacturer ? `, ${s.manufacturer}` : ''}`,
    `  size         ${s.columns} x ${s.rows} pixels x ${s.slices} slice${s.slices > 1 ? 's' : ''}${s.multiFrame ? ' (one multi-frame file)' : ''}`,
    `  spacing      ${s.pixelSpacingUnknown ? 'pixel size unknown' : `pixels ${mm(s.pixelSpacing[1])} x ${mm(s.pixelSpacing[0])} mm`}, ${s.sliceSpacingUnknown ? 'slice spacing unknown' : `slices ${mm(s.sliceSpacing)} mm apart`}`,
    `  orientation  ${s.orientation.plane} [${s.orientation.cosines.map((c) => +c.toFixed(4)).join(', ')}]`,
    `  pixels       ${s.bitsAllocated} bits (${s.bitsStored} used), ${s.transferSyntax.name}`,
    `  files        ${s.fileCount}, ${formatBytes(s.totalBytes)}`,
  ];
  if (s.problems.length === 0) out.push('  problems     none');
  else {
    out.push('  problems');
    for (const p of s.problems) out.push(...problemLines(p, '    '));
  }
  // As on the app's series card, so that inspect never leaves unsaid what submit will refuse.
  const unfit = unfitReasons(
    s,
    s.problems.map((p) => p.message),
  );
  if (unfit.length > 0) {
    out.push('  no model can be made of it');
    for (const r of unfit) out.push(`    ${r}`);
  }
  return out;
}

function problemLines(p: ScanProblem, indent: string): string[] {
  const lines = [`${indent}${p.severity}: ${p.message}`];
  if (p.file) lines.push(`${indent}  (${p.file})`);
  return lines;
}

function formatDate(d: string): string {
  return /^\d{8}$/.test(d) ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}` : d || '(unknown)';
}

export function registerInspect(program: Command): void {
  program
    .command('inspect')
    .description('Look at DICOM files, folders and zips: list the series found and what is wrong with them')
    .argument('<path...>', 'files, folders or zip archives, in any mix (a leading ~/ is your home folder)')
    .option('--json', 'print one JSON document instead of text')
    .action(async (typed: string[], opts: { json?: boolean }) => {
      // `'~/scan'` reaches us unexpanded; a path that is not there is named as typed (a review saw
      // "cranium does not exist" for '~/cranium').
      process.exitCode = await runInspect(await checkScanPaths(typed), opts);
    });
}
