import type { IncomingHttpHeaders } from 'node:http';

/**
 * A download cut off part way (the connection dropped, or went silent) is asked for the rest on its
 * next attempt, not from byte 0: `Range: bytes=<have>-`, with `If-Range` naming the file as the
 * storage described it, so that a file changed meanwhile comes whole instead of being spliced (RFC
 * 9110 §13.1.5, §14.2). S3, Azure and Google storage answer ranges on pre-signed GETs; one that does
 * not answers 200 with the whole file, which is then written from the start.
 */
export interface ResumePoint {
  /** Bytes of the file already on disk, in order. */
  have: number;
  /** What names this version of the file: a strong ETag, else Last-Modified. */
  validator: string;
}

/** A header value as it may go on a request line: printable, no line breaks. */
const PRINTABLE = /^[\x20-\x7e]+$/;

/**
 * The validator of an answer whose body can be resumed: identity-coded (a coded body is decoded as a
 * whole), with a strong ETag (a weak one may not be used in If-Range) or a Last-Modified date.
 */
export function resumeValidator(headers: IncomingHttpHeaders): string | undefined {
  const coding = headers['content-encoding'];
  if (coding !== undefined && coding.trim().toLowerCase() !== 'identity') return undefined;
  const etag = headers.etag;
  const candidate = etag && !etag.startsWith('W/') ? etag : headers['last-modified'];
  return candidate !== undefined && PRINTABLE.test(candidate) ? candidate : undefined;
}

export function rangeHeaders(p: ResumePoint): Record<string, string> {
  return { Range: `bytes=${p.have}-`, 'If-Range': p.validator };
}

/**
 * What a success answered to a resumed GET: 'rest' (206 from the byte asked for), 'whole' (200: the
 * file again, from 0), or 'other' (a range that is not the one asked for, or a coded one: refused).
 */
export function resumedAnswer(
  p: ResumePoint,
  status: number,
  headers: IncomingHttpHeaders,
): 'rest' | 'whole' | 'other' {
  if (status !== 206) return status === 200 ? 'whole' : 'other';
  const range = /^bytes (\d+)-\d+\/(?:\d+|\*)$/.exec(headers['content-range']?.trim() ?? '');
  const coded = (headers['content-encoding'] ?? 'identity').trim().toLowerCase() !== 'identity';
  return range && Number(range[1]) === p.have && !coded ? 'rest' : 'other';
}
