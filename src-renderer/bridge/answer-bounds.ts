/**
 * How long the page waits for the app to start answering, by kind of request. A hung app is named
 * sooner by the event stream's silence (link-timing.ts), which ends every waiting call at once; these
 * bounds are for an app that is alive but stuck on one request.
 */

/** A click, a list, a setting: a minute without a word is long past what anyone waits for. */
const ANSWER_MS = 60_000;

/**
 * Calls whose work grows with what the user gave or that wait on someone else: reading the headers of
 * up to 10,000 dropped files (scans.intake), recording a batch of many jobs (jobs.submit), a remote
 * service that is slow to answer its connection test (profiles.test, profiles.capabilities).
 */
const LONG_CALLS: ReadonlySet<string> = new Set([
  'scans.intake',
  'jobs.submit',
  'profiles.test',
  'profiles.capabilities',
]);
const LONG_ANSWER_MS = 10 * 60_000;

export const invokeBoundMs = (channel: string): number =>
  LONG_CALLS.has(channel) ? LONG_ANSWER_MS : ANSWER_MS;

/** The mesh a viewer asks for: the bound stops at its first byte, however long the rest takes. */
export const fileBoundMs = ANSWER_MS;

/** The stage's size limits: a lookup. */
export const stageLimitsBoundMs = ANSWER_MS;

/** The slowest copy the bound allows for: a tired USB disk behind a loaded machine. */
const SLOWEST_COPY_BYTES_PER_S = 4 * 1024 ** 2;

/**
 * A file copied to the stage is answered only once all of it is written, and four go at once: a
 * minute, plus its size at the slowest copy speed, times the four sharing the disk. A 2 GiB file
 * (the default cap) may take about 35 minutes; a DICOM slice of half a megabyte about one.
 */
export const stageCopyBoundMs = (bytes: number, parallel: number): number =>
  ANSWER_MS + Math.ceil((bytes * parallel * 1000) / SLOWEST_COPY_BYTES_PER_S);
