import {
  STAGE_BATCH_MAX_FILES,
  STAGE_MANIFEST_MAX_BYTES,
  type StagedFileEntry,
} from '../../src-shared/stage-batch.js';

/** Longest path a manifest may name for one file: deeper than any real folder, short of the manifest. */
const MAX_PATH_CHARS = 4096;
const NEWLINE = 0x0a;
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** A request body read in pieces of the lengths the reader asks for, from its chunks as they come. */
export class BodyReader {
  /** What the last chunk held beyond the piece taken from it. */
  private rest: Buffer | undefined;
  /** Bytes of the body handed out so far (those put back not counted). */
  taken = 0;

  constructor(private readonly chunks: AsyncIterator<Buffer>) {}

  /** At most `max` (> 0) bytes of what comes next, as soon as there are any; undefined at the body's end. */
  async next(max: number): Promise<Buffer | undefined> {
    let chunk = this.rest;
    this.rest = undefined;
    while (!chunk || chunk.length === 0) {
      const r = await this.chunks.next();
      if (r.done) return undefined;
      chunk = r.value;
    }
    if (chunk.length > max) {
      this.rest = chunk.subarray(max);
      chunk = chunk.subarray(0, max);
    }
    this.taken += chunk.length;
    return chunk;
  }

  /** Puts back the end of a piece taken but not used: the next call starts with it. */
  unread(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.rest = this.rest ? Buffer.concat([bytes, this.rest]) : bytes;
    this.taken -= bytes.length;
  }
}

/**
 * The manifest line at the start of a batch's body (src-shared/stage-batch.ts), checked: an array of
 * 1 to STAGE_BATCH_MAX_FILES entries, each a path and a whole, non-negative size. A string in words
 * when it is not one; the body then goes unread.
 */
export async function readStageManifest(body: BodyReader): Promise<StagedFileEntry[] | string> {
  const parts: Buffer[] = [];
  let length = 0;
  for (;;) {
    const piece = await body.next(STAGE_MANIFEST_MAX_BYTES - length);
    if (!piece) return 'The upload ended before its list of files did.';
    const end = piece.indexOf(NEWLINE);
    if (end >= 0) {
      parts.push(piece.subarray(0, end));
      body.unread(piece.subarray(end + 1));
      break;
    }
    parts.push(piece);
    length += piece.length;
    if (length >= STAGE_MANIFEST_MAX_BYTES)
      return `The upload's list of files is longer than ${STAGE_MANIFEST_MAX_BYTES} bytes.`;
  }
  let list: unknown;
  try {
    list = JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    return "The upload's list of files is not valid JSON.";
  }
  if (!Array.isArray(list) || list.length === 0 || list.length > STAGE_BATCH_MAX_FILES)
    return `The upload's list of files must name 1 to ${STAGE_BATCH_MAX_FILES} files.`;
  const files: StagedFileEntry[] = [];
  for (const entry of list as unknown[]) {
    const { path, size } = (entry ?? {}) as { path?: unknown; size?: unknown };
    if (typeof path !== 'string' || path.length === 0 || path.length > MAX_PATH_CHARS)
      return `Each file of the upload needs a path of 1 to ${MAX_PATH_CHARS} characters.`;
    // Half a UTF-16 pair is no character: the disk would take two such names for one.
    if (LONE_SURROGATE.test(path)) return 'A path of the upload is not well-formed text.';
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
      return 'Each file of the upload needs a size in whole bytes.';
    files.push({ path, size });
  }
  return files;
}
