import type { MeshResult } from '../../src-shared/job-spec.js';

/**
 * Which of a finished job's result records (§2.3) is which requested mesh. A record says its
 * extension and structures "as requested"; each record is one file, so it answers one request at
 * most. A review's service listed the two records of a job in the other order, the teeth one under
 * the teeth it holds: matched by position, the skull was saved as both skull.stl and all_teeth.stl,
 * and a record named `mandible` was saved as skull.stl. Names are never guessed from places.
 */

/** A requested mesh: its extension and structures. */
export interface Requested {
  extension: string;
  structures: readonly string[];
}

/** A structure name as a service may echo it: case, spaces and hyphens aside ("Soft tissue"). */
const normal = (name: string): string =>
  name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

/**
 * The names a shorthand of the service notes stands for: a service may list the teeth or nerves it
 * made in its place.
 */
const SHORTHANDS: Record<string, (name: string) => boolean> = {
  all_nerves: (n) => n === 'left_nerve' || n === 'right_nerve',
  all_permanent_teeth: (n) => /^tooth[1-4][1-8]$/.test(n),
  all_teeth: (n) => /^tooth(?:[1-4][1-8]|[5-8][1-5])$/.test(n),
};

/** Extensions alike, with or without their dot ("stl" for ".stl"). */
const sameExtension = (a: string, b: string): boolean =>
  normal(a).replace(/^\./, '') === normal(b).replace(/^\./, '');

function sameNames(requested: readonly string[], listed: readonly string[]): boolean {
  const a = [...new Set(requested.map(normal))].sort();
  const b = [...new Set(listed.map(normal))].sort();
  return a.length === b.length && a.every((n, i) => n === b[i]);
}

/**
 * Whether every listed name is one of the requested names or one a requested shorthand stands for,
 * and each requested name is there or stood for: `all_teeth` listed as tooth11, tooth12, ...
 */
function namesStoodFor(requested: readonly string[], listed: readonly string[]): boolean {
  if (listed.length === 0) return false;
  const asked = requested.map(normal);
  const got = listed.map(normal);
  const covers = (a: string, n: string): boolean => a === n || (SHORTHANDS[a]?.(n) ?? false);
  return (
    got.every((n) => asked.some((a) => covers(a, n))) && asked.every((a) => got.some((n) => covers(a, n)))
  );
}

/**
 * The record of each requested mesh, or undefined where the answer lists none for it: first the
 * records with the same extension and names (the n-th of two alike requests takes the n-th alike
 * record), then those listing what a shorthand asked for stands for. No record is used twice. A
 * request the answer lists more different records for than it asked stands as failed (listedTwice).
 */
export function matchResults(
  requested: readonly Requested[],
  records: readonly MeshResult[],
): (MeshResult | undefined)[] {
  const taken = new Set<number>();
  const found: (MeshResult | undefined)[] = requested.map(() => undefined);
  const pass = (fits: (want: Requested, r: MeshResult) => boolean): void =>
    requested.forEach((want, i) => {
      if (found[i]) return;
      const j = records.findIndex(
        (r, k) => !taken.has(k) && sameExtension(r.extension, want.extension) && fits(want, r),
      );
      if (j < 0) return;
      taken.add(j);
      found[i] = records[j];
    });
  const alike = (want: Requested, r: MeshResult): boolean => sameNames(want.structures, r.structures);
  // Either way round: the teeth listed for all_teeth asked for, or all_nerves listed for both nerves.
  const stoodFor = (want: Requested, r: MeshResult): boolean =>
    namesStoodFor(want.structures, r.structures) || namesStoodFor(r.structures, want.structures);
  pass(alike);
  const exact = new Set(found.flatMap((r, i) => (r ? [i] : [])));
  pass(stoodFor);
  // Records left over that also fit a request: the same file listed twice is harmless (also one
  // another request took), but two different ones (or two statuses) for one mesh leave no way to tell
  // which is the mesh asked for. A request its own names matched is judged by records of those names
  // only: the teeth listed one by one beside the all_teeth record asked for do not make it doubtful.
  const takenRecords = [...taken].map((k) => records[k] as MeshResult);
  requested.forEach((want, i) => {
    const mine = found[i];
    if (!mine) return;
    const fits = exact.has(i) ? alike : (w: Requested, r: MeshResult) => alike(w, r) || stoodFor(w, r);
    const others = records.filter(
      (r, k) =>
        !taken.has(k) &&
        sameExtension(r.extension, want.extension) &&
        fits(want, r) &&
        !takenRecords.some((t) => sameFile(r, t)),
    );
    if (others.length > 0) found[i] = listedTwice(want, [mine, ...others]);
  });
  return found;
}

/**
 * Query parameters that sign an address rather than name a file (S3, Google Cloud Storage, Azure,
 * CloudFront and the like, and the local engine's X-Signature/X-Expires): the same file signed twice
 * differs only in these. A service that names the file in the query (?file=skull_v2.stl) keeps it.
 */
const SIGNING =
  /^(x-amz-.*|x-goog-.*|x-ms-.*|x-signature|x-expires|signature|expires|key-pair-id|policy|googleaccessid|awsaccesskeyid|sig|se|st|sp|sv|sr|spr|srt|ss|skoid|sktid|skt|ske|sks|skv|token)$/i;

/** An address without its signing parameters: what names the file. */
function fileOf(url: string): string | undefined {
  try {
    // A relative address is read against a stand-in base: only its path and query matter here.
    const u = new URL(url, 'http://relative.invalid/');
    const kept = [...u.searchParams].filter(([k]) => !SIGNING.test(k)).sort(([x], [y]) => (x < y ? -1 : 1));
    return `${u.origin}${u.pathname}?${new URLSearchParams(kept).toString()}`;
  } catch {
    return undefined;
  }
}

/** Two records for the same file: the same status (case aside) and the same address but for its signing. */
function sameFile(a: MeshResult, b: MeshResult): boolean {
  if (a.status.toLowerCase() !== b.status.toLowerCase()) return false;
  if (a.url === b.url) return true;
  if (!a.url || !b.url) return false;
  const fa = fileOf(a.url);
  return fa !== undefined && fa === fileOf(b.url);
}

/** The status given to a requested mesh the answer lists several different records for. */
export const OUTPUT_LISTED_TWICE = 'Listed more than once';

/**
 * A record standing for a requested mesh the answer lists several different files (or statuses) for:
 * failed in words rather than the first one taken as the mesh, since nothing tells which is.
 */
function listedTwice(want: Requested, records: readonly MeshResult[]): MeshResult {
  const statuses = [...new Set(records.map((r) => r.status))].join(', ');
  return {
    status: OUTPUT_LISTED_TWICE,
    extension: want.extension,
    structures: [...want.structures],
    message: `the service's answer lists ${records.length} different records for this mesh (statuses: ${statuses}), and nothing tells which of them is the mesh asked for, so none is saved as it; report it to the service operator`,
  };
}

/** The status given to a requested mesh the answer lists no record for. */
export const OUTPUT_NOT_LISTED = 'Not listed';

/**
 * A record standing for a requested mesh the answer lists none for: failed in words, naming what the
 * answer does list, rather than a record taken by its place.
 */
export function notListed(want: Requested, records: readonly MeshResult[]): MeshResult {
  const listed = records.map((r) => `${r.structures.join('+')}${r.extension}`).join(', ') || 'none';
  return {
    status: OUTPUT_NOT_LISTED,
    extension: want.extension,
    structures: [...want.structures],
    message: `the service's answer lists no mesh with these structures and extension (it lists: ${listed}), and none is saved under a name the service did not give it`,
  };
}
