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
  let common = dirname(first);
  for (const f of files) {
    while (common !== dirname(common) && !f.startsWith(common.endsWith(sep) ? common : common + sep))
      common = dirname(common);
  }
  return common;
}
