import type { ScanProblem, SkippedFile } from '../../src-shared/scans';

/** One reason something in a drop was left out or is wrong, with every item it applies to. */
interface ReasonGroup {
  /** The reason, in words, starting with a capital. */
  reason: string;
  /** What to do about it. */
  action: string;
  severity: 'error' | 'warning' | 'info';
  /** Each item: its file (when there is one) and, when it says more than the reason, its own words. */
  items: { file?: string; detail?: string }[];
}

const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** What several files with one problem share, for the group's title. */
const CODE_TITLES: Record<string, string> = {
  'corrupt-file': 'Damaged files',
  'truncated-file': 'Files cut off before their end',
  unreadable: 'Files that cannot be read',
  'archive-refused': 'Archives that cannot be opened',
};

/** What to do about a skipped file, from the kind of reason the core gives (classify.ts). */
export function actionFor(reason: string): string {
  const r = reason.toLowerCase();
  if (/3d mesh/.test(r)) return 'Nothing to do here: open meshes in the Viewer.';
  if (/text file|picture|pdf|office|thumbnail|folder information|folder settings|program|empty file/.test(r))
    return 'Nothing to do: these are not part of a scan and were left out.';
  if (/dicomdir/.test(r))
    return 'Nothing to do when you dropped its folder too; otherwise drop the folder that holds the DICOMDIR.';
  if (/outside the folder you dropped/.test(r))
    return 'If the link leads to part of the scan, drop the place it leads to as well.';
  if (/loop of links|device|pipe|socket/.test(r))
    return 'Nothing to do: it is not a file and holds no scan, so it was left out.';
  if (/7-zip|rar/.test(r)) return 'Pack the scan as a .zip, or drop its folder, and add it again.';
  if (/report|plan|without image|not an image|presentation|key object/.test(r))
    return 'Not an image, so nothing to segment. If the scan images are missing, export the series again with its images.';
  if (/not a dicom|not dicom/.test(r))
    return 'If this should be a scan, export it again from the imaging software as DICOM.';
  if (/nested|archive/.test(r)) return 'Unpack the archive and drop the folder with the DICOM files.';
  return 'Check the file; if it should be part of the scan, export the series again.';
}

/**
 * A drop's left-out files and problems, grouped by reason so that nine bad files read as three
 * reasons, each with every file it covers. Problems with a file are grouped by their code; a problem
 * about the drop as a whole stands alone.
 */
export function groupByReason(
  problems: readonly ScanProblem[],
  skipped: readonly SkippedFile[],
): ReasonGroup[] {
  const groups = new Map<string, ReasonGroup>();
  const codes = new Map<ReasonGroup, string>();
  const codeOf = (g: ReasonGroup): string => codes.get(g) ?? '';
  const add = (key: string, make: () => Omit<ReasonGroup, 'items'>, item: ReasonGroup['items'][number]) => {
    let g = groups.get(key);
    if (!g) {
      g = { ...make(), items: [] };
      groups.set(key, g);
      codes.set(g, key.split(':')[1] ?? '');
    }
    g.items.push(item);
  };
  for (const p of problems) {
    if (!p.file) {
      add(`p:${p.code}:${p.message}`, () => ({ reason: p.message, action: '', severity: p.severity }), {});
      continue;
    }
    add(
      `p:${p.code}`,
      () => ({
        reason: p.message,
        action: 'Export the series again from the imaging software, or copy it again if it was cut off.',
        severity: p.severity,
      }),
      { file: p.file, detail: p.message },
    );
  }
  for (const s of skipped) {
    add(
      `s:${s.reason}`,
      () => ({ reason: capital(s.reason), action: actionFor(s.reason), severity: 'info' }),
      { file: s.path },
    );
  }
  const out = [...groups.values()];
  for (const g of out) {
    // Problems with a file show their own words (which name the file) under a title that says what
    // they share, one file or several: a sentence naming one file is no group's title.
    const title = CODE_TITLES[codeOf(g)];
    if (g.items.some((i) => i.detail !== undefined) && (title || g.items.length > 1))
      g.reason = title ?? 'Files with a problem';
    else if (g.items.length === 1) delete g.items[0]!.detail;
  }
  const rank = { error: 0, warning: 1, info: 2 } as const;
  return out.sort((a, b) => rank[a.severity] - rank[b.severity] || b.items.length - a.items.length);
}
