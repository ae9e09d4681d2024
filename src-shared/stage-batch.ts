/**
 * Web mode's upload of dropped files, several to a request. A browser spends tens of milliseconds on
 * each request it makes, whatever its size (measured in Chromium, four at a time: 6 ms per 8 KiB
 * file sent alone, 0.3 ms in batches), and a technician's drop is thousands of slices: the page sends
 * them in batches. The body of `POST /api/stage?drop=<uuid>`: the manifest, one line of JSON (an
 * array of StagedFileEntry, in order) ending in "\n", then the bytes of each file in that order,
 * nothing between them and nothing after. JSON writes a newline inside a string as "\n", so the first
 * newline byte ends the manifest. The answer: `{ grants }`, one per file, in the manifest's order.
 */
export interface StagedFileEntry {
  /** Where the file goes inside the drop: its path within a dropped folder, or its name. */
  path: string;
  /** Its length in bytes: exactly this many bytes of the body are the file. */
  size: number;
}

/** The most files one request carries: the page sends fewer (web-bridge.ts); more is refused. */
export const STAGE_BATCH_MAX_FILES = 1000;
/** The longest manifest the app reads, newline included. */
export const STAGE_MANIFEST_MAX_BYTES = 1024 * 1024;

/** The head of a batch's body: its manifest line. */
export const stageBatchHead = (files: readonly StagedFileEntry[]): string => `${JSON.stringify(files)}\n`;
