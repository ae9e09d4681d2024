import { AppError } from '../../src-shared/errors.js';
import { isLoopbackHost } from '../../src-shared/profiles.js';

/**
 * Where the client may send what. Plain http is allowed only to this computer, so that tokens and
 * patient data never cross a network unencrypted; the bearer token goes only to the configured
 * service's origin.
 */
export function parseTransportUrl(raw: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('service', `${what} is not a valid address.`, {
      action: 'This address came from the service or the connection settings; check them.',
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new AppError(
      'service',
      `${what} uses ${url.protocol}; only https (or http to this computer) is used.`,
    );
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    throw new AppError('service', `${what} (${safeUrl(url)}) uses plain http to another computer; refused.`, {
      action:
        'Use an https address; plain http is allowed only to this computer (127.0.0.1, ::1, localhost).',
    });
  return url;
}

/** Same scheme, host and port. */
export function sameOrigin(a: URL, b: URL): boolean {
  return a.origin === b.origin;
}

/** An address fit for logs and messages: origin and path, never the query that carries signatures. */
export function safeUrl(url: URL | string): string {
  try {
    const u = typeof url === 'string' ? new URL(url) : url;
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(invalid address)';
  }
}

/** `{base}{path}`, keeping the base's path (the version segment) whatever slashes the user typed. */
export function joinUrl(base: URL, path: string, query?: Record<string, string>): URL {
  const url = new URL(base.href);
  url.pathname = `${base.pathname.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  url.search = '';
  url.hash = '';
  if (query) for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return url;
}
