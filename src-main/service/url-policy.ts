import type * as Tldts from 'tldts';
import { lazyLibrary } from '../platform/lazy-library.js';
import { AppError } from '../../src-shared/errors.js';
import { isLoopbackHost } from '../../src-shared/profiles.js';

/** Only an address on another host of the service's port needs the list of registrable domains. */
const tldts = lazyLibrary<typeof Tldts>('tldts');

/**
 * Where the client may send what. Plain http is allowed only to this computer, so that tokens and
 * patient data never cross a network unencrypted; the bearer token goes only to the configured
 * service's own site (mayCarryToken).
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
  // Pre-signed storage takes its signature in the address alone, and a service its token: a user and
  // password in an address would go out as Basic authorization (a review), so they are dropped.
  url.username = '';
  url.password = '';
  const target = verbatimTarget(raw, url);
  if (target !== undefined) asGiven.set(url, target);
  return url;
}

/**
 * Path and query as the service wrote them, for the addresses parseTransportUrl read. The URL parser
 * writes some characters again (a ' in a query as %27), and a pre-signed address's signature covers
 * its own spelling: storage that checks it byte for byte refuses the rewritten one. So the request
 * line carries the address as given whenever it is a valid request target as it stands; otherwise
 * (spaces, other characters a request line cannot hold, `.` or `..` segments, which curl resolves
 * too) the parser's form.
 */
const asGiven = new WeakMap<URL, string>();
/** The characters of a URI's path and query (RFC 3986), percent signs only before two hex digits. */
const TARGET = /^\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?]|$)/;

function verbatimTarget(raw: string, url: URL): string | undefined {
  const [, authority, rest] = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)([^#]*)/.exec(raw) ?? [];
  // The host as the parser read it, or the written path is not the one the parser read (a backslash
  // ends the host for it, and credentials are dropped above).
  if (!rest || authority?.toLowerCase() !== url.host) return undefined;
  const target = rest.startsWith('?') ? `/${rest}` : rest;
  const path = target.split('?', 1)[0] as string;
  return TARGET.test(target) && !DOT_SEGMENT.test(path) ? target : undefined;
}

/** The request target (path and query) to send for `url`: as the service wrote it when it can be. */
export function requestTarget(url: URL): string {
  return asGiven.get(url) ?? `${url.pathname}${url.search}`;
}

/** Same scheme, host and port. */
export function sameOrigin(a: URL, b: URL): boolean {
  return a.origin === b.origin;
}

/**
 * Whether the bearer token may be sent to `url`, an address the service named (the notify address,
 * §4: it "does need" the token), given the configured service address `base`. The interface does not
 * say the notify address is on the service's own host, so: the same origin; this computer's service
 * under another loopback name or port (localhost:8081 for 127.0.0.1:8080); over https, the service's
 * own host on another port, or a host of
 * the same registrable domain as the service (api.example.com for eu.example.com), by the Public
 * Suffix List with its private section, so that a shared cloud suffix (s3.amazonaws.com) never
 * counts as one site. Never anywhere else: a pre-signed storage address must not see the token.
 */
export function mayCarryToken(url: URL, base: URL): boolean {
  if (sameOrigin(url, base)) return true;
  // A service on this computer (the interface names no host for the notify address): any of its
  // loopback addresses and ports is the same machine's.
  if (url.protocol === base.protocol && isLoopbackHost(url.hostname) && isLoopbackHost(base.hostname))
    return true;
  if (url.protocol !== base.protocol || url.protocol !== 'https:') return false;
  // The service's own host on another port (a review's notify address; an address given as an IP
  // has no registrable domain): the same machine, the same party.
  if (url.hostname === base.hostname) return true;
  if (url.port !== base.port) return false;
  const { getDomain } = tldts();
  const site = getDomain(base.hostname, { allowPrivateDomains: true });
  return site !== null && getDomain(url.hostname, { allowPrivateDomains: true }) === site;
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
