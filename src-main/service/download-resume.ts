import { stat } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * A download cut off part way (the connection dropped, or went silent) is asked for the rest on its
 * next attempt, not from byte 0: `Range: bytes=<have>-`, with `If-Range` naming the file as the
 * storage described it, so that a file changed meanwhile comes whole instead of being spliced (RFC
 * 9110 §13.1.5, §14.2). S3, Azure and Google storage answer ranges on pre-signed GETs; one that does
 * not answers 200 with the whole file, which is then written from the start. A 206 is taken only as
 * the rest of the same file: from the byte asked for to the end of a file of the same length, of the
 * version asked for (storage that ignored If-Range sent a moved half of a skull after the first: a
 * review). Anything else is downloaded whole.
 */
export interface ResumePoint {
  /** Bytes of the file already on disk, in order. */
  have: number;
  /** What names this version of the file: a strong ETag, else Last-Modified. */
  validator: string;
  /** The whole file's bytes, where an answer said them. */
  total?: number | undefined;
}

/** A header value as it may go on a request line: printable, no line breaks. */
const PRINTABLE = /^[\x20-\x7e]+$/;

/** Whether an answer's body is coded (a coded body is decoded as a whole, never resumed). */
export const codedBody = (headers: IncomingHttpHeaders): boolean =>
  (headers['content-encoding'] ?? 'identity').trim().toLowerCase() !== 'identity';

/**
 * The validator of an answer: a strong ETag (a weak one may not be used in If-Range), else a
 * Last-Modified date; undefined for none, or for a coded body.
 */
export function resumeValidator(headers: IncomingHttpHeaders): string | undefined {
  if (codedBody(headers)) return undefined;
  const etag = headers.etag;
  const candidate = etag && !etag.startsWith('W/') ? etag : headers['last-modified'];
  return candidate !== undefined && PRINTABLE.test(candidate) ? candidate : undefined;
}

/** The whole file's bytes as a success's head says them: Content-Range's total, else a 200's length. */
export function fileTotal(
  status: number,
  headers: IncomingHttpHeaders,
  length: number | undefined,
): number | undefined {
  if (status === 200) return length;
  const total = /\/(\d+)$/.exec(headers['content-range']?.trim() ?? '')?.[1];
  return total === undefined ? undefined : Number(total);
}

export function rangeHeaders(p: ResumePoint): Record<string, string> {
  return { Range: `bytes=${p.have}-`, 'If-Range': p.validator };
}

/**
 * What a success answered to a GET without a Range: 'whole', or 'other' for a 206 that is not the
 * whole file (`bytes 0-(N-1)/N`): its bytes would be written from 0 (a review: a file spliced so).
 */
export function firstAnswer(status: number, headers: IncomingHttpHeaders): 'whole' | 'other' {
  if (status !== 206) return 'whole';
  const range = /^bytes 0-(\d+)\/(\d+)$/.exec(headers['content-range']?.trim() ?? '');
  return range && Number(range[1]) === Number(range[2]) - 1 ? 'whole' : 'other';
}

/**
 * What a success answered to a resumed GET: 'rest' (206: the rest of the same file, to its end),
 * 'whole' (200: the file again, from 0), or 'other' (any other 206: refused, and the file downloaded
 * whole).
 */
export function resumedAnswer(
  p: ResumePoint,
  status: number,
  headers: IncomingHttpHeaders,
): 'rest' | 'whole' | 'other' {
  if (status !== 206) return status === 200 ? 'whole' : 'other';
  const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(headers['content-range']?.trim() ?? '');
  if (!range || codedBody(headers) || resumeValidator(headers) !== p.validator) return 'other';
  const [from, to, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
  const same = p.total === undefined || total === p.total;
  return from === p.have && to === total - 1 && same ? 'rest' : 'other';
}

/** The file as the storage's last whole answer described it: its version and length. */
export interface FileVersion {
  validator?: string | undefined;
  total?: number | undefined;
}

/**
 * Where another attempt of a download cut off goes on from: the bytes on disk (`tmp`), when the
 * storage named the file's version; undefined to start again. Told to `note` (the log) either way.
 */
export async function resumeAfterCut(
  tmp: string,
  known: FileVersion,
  note: (data: Record<string, unknown>) => void,
): Promise<ResumePoint | undefined> {
  const have = await stat(tmp).then(
    (s) => s.size,
    () => 0,
  );
  if (have === 0) return undefined;
  const { validator, total } = known;
  note(
    validator
      ? { have, goesOnFrom: have }
      : { have, startsAgain: 'the storage named no version of the file' },
  );
  return validator ? { have, validator, total } : undefined;
}
