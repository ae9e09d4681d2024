import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../../src-shared/errors.js';
import { parseTransportUrl, safeUrl } from './url-policy.js';

// Which redirects of storage a transfer follows, and where to (transfers.ts).

/** Redirects followed in one attempt: storage redirects once or twice (to a region); more is a loop. */
const MAX_REDIRECTS = 5;
/** A GET may follow every redirect; 303 means "GET this instead", which a GET already is. */
export const DOWNLOAD_REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
/** Only these keep the method and body (RFC 9110 §15.4); 301/302/303 would turn a PUT into a GET. */
export const UPLOAD_REDIRECTS: ReadonlySet<number> = new Set([307, 308]);

/**
 * The address a redirect leads to: refused when there is none, after MAX_REDIRECTS, from https to
 * anything else, or to an address parseTransportUrl refuses (plain http to another computer). User
 * name and password in it are dropped: the http module would send them as an Authorization header,
 * and pre-signed storage takes the signature in the address alone.
 */
export function redirectTarget(
  label: 'Upload' | 'Download',
  from: URL,
  answer: { status: number; headers: IncomingHttpHeaders },
  hops: number,
): URL {
  const fail = (why: string): AppError =>
    new AppError('service', `${label}: storage redirected (${answer.status}) ${why}.`, {
      action: 'Report it to the service operator.',
    });
  const location = answer.headers.location;
  if (!location) throw fail('without saying where (no Location)');
  if (hops >= MAX_REDIRECTS)
    throw fail(`more than ${MAX_REDIRECTS} times; the last address was ${safeUrl(from)}`);
  let to: URL;
  try {
    to = new URL(location, from);
  } catch {
    throw fail('to an address that is not valid');
  }
  if (from.protocol === 'https:' && to.protocol !== 'https:')
    throw fail(`from https to ${safeUrl(to)}; an encrypted transfer is never continued unencrypted`);
  const credentials = to.username !== '' || to.password !== '';
  to.username = '';
  to.password = '';
  to.hash = '';
  // As storage wrote it, where it can be (its signature covers its spelling: url-policy.ts), else as
  // the URL parser writes it: one with credentials, or relative to anything but the origin.
  const given = location.split('#', 1)[0] as string;
  const raw = credentials
    ? to.href
    : /^[a-z][a-z0-9+.-]*:\/\//i.test(given)
      ? given
      : given.startsWith('/') && !given.startsWith('//')
        ? `${to.origin}${given}`
        : to.href;
  return parseTransportUrl(raw, `${label}: the address storage redirected to`);
}

/** A 3xx that is not followed: 300, 304, or one that would change an upload's method. */
export function redirectNotFollowed(what: 'upload' | 'download', status: number, detail: string): AppError {
  const followed = what === 'upload' ? '307 and 308' : '301, 302, 303, 307 and 308';
  return new AppError(
    'service',
    `${what === 'upload' ? 'Upload' : 'Download'}: storage answered ${status}${detail}, a redirect not followed for ${what}s (only ${followed} are).`,
    { action: 'Report it to the service operator.' },
  );
}
