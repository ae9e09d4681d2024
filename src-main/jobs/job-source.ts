import { dirname, sep } from 'node:path';

/**
 * Where a job's scan came from, in one path: the file given, or the folder that holds all its files
 * (the deepest one they share). Two scans in folders of one name (p1/scan, p2/scan) are told apart
 * by it in the Jobs list and in `status` (a review could not trace a batch's jobs to their scans).
 */
export function sourceOf(files: readonly string[]): string | undefined {
  const first = files[0];
  if (first === undefined) return undefined;
  if (files.length === 1) return first;
  // A job's view is made at every change of it: one prefix test per file, the prefix made anew only
  // when a file lies outside it.
  const withSep = (dir: string): string => (dir.endsWith(sep) ? dir : dir + sep);
  let common = dirname(first);
  let prefix = withSep(common);
  for (const f of files) {
    while (!f.startsWith(prefix) && common !== dirname(common)) {
      common = dirname(common);
      prefix = withSep(common);
    }
  }
  return common;
}
