import { z } from 'zod';

/** A connection to a segmentation service. The client secret is never part of it: it lives in the keychain. */
export const ConnectionProfileSchema = z.object({
  id: z.string().min(1).max(64),
  name: z.string().trim().min(1, 'Give the connection a name.').max(80),
  kind: z.enum(['local-engine', 'remote']),
  /** Service address including the version segment, e.g. https://eu.virtualpatientengine.com/24.06 */
  baseUrl: z.string(),
  /** Identity provider address; the token endpoint is {authUrl}/oauth/token */
  authUrl: z.string(),
  audience: z.string(),
  clientId: z.string(),
});
export type ConnectionProfile = z.infer<typeof ConnectionProfileSchema>;

/**
 * What decides where a remote connection's client secret (and the token signed in with it) is sent: a
 * stored secret belongs to these values as they were when it was typed, and to no others.
 */
export const SECRET_BOUND_FIELDS = ['baseUrl', 'authUrl', 'audience', 'clientId'] as const;

/** The embedded local engine: its addresses and credentials are made when it starts, so they are blank here. */
export const LOCAL_ENGINE_PROFILE: ConnectionProfile = {
  id: 'local-engine',
  name: 'Local engine (this computer)',
  kind: 'local-engine',
  baseUrl: '',
  authUrl: '',
  audience: '',
  clientId: '',
};

/** Defaults for Relu's EU region (service-notes.md); every field stays editable. */
export const RELU_EU_TEMPLATE: Omit<ConnectionProfile, 'id'> = {
  name: 'Relu EU 24.06',
  kind: 'remote',
  baseUrl: 'https://eu.virtualpatientengine.com/24.06',
  authUrl: 'https://vpengine.eu.auth0.com',
  audience: 'virtualpatientengine.com',
  clientId: '',
};

const LOOPBACK_HOSTS = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.test(hostname);
}

/**
 * Checks an address the user typed: https, or plain http only to this computer (loopback), because
 * tokens and patient data must not cross a network unencrypted. Returns a message, or null when fine.
 */
function checkServiceAddress(value: string, what: string, example: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${what} is not a valid address. Write it in full, e.g. ${example}`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `${what} must start with https://`;
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    return `${what} uses plain http to another computer; use https:// (plain http is allowed only for this computer).`;
  if (url.search || url.hash) return `${what} must not contain a query (?…) or a fragment (#…).`;
  if (url.username || url.password) return `${what} must not contain a user name or password.`;
  return null;
}

/** The version segment is the first path segment of the base address (service-interface.md §9). */
export function serviceVersion(baseUrl: string): string | null {
  try {
    const seg = new URL(baseUrl).pathname.split('/').filter(Boolean)[0];
    return seg ?? null;
  } catch {
    return null;
  }
}

/** A remote profile as typed in the form: every field checked, with messages per field. */
export const RemoteProfileInputSchema = z
  .object({
    id: z.string().min(1).max(64).optional(),
    name: z
      .string()
      .trim()
      .min(1, 'Give the connection a name.')
      .max(80, 'Keep the name under 80 characters.'),
    baseUrl: z.string().trim(),
    authUrl: z.string().trim(),
    audience: z.string().trim().min(1, 'The audience is required; the service operator gives it.'),
    clientId: z.string().trim().min(1, 'The client id is required; the service operator gives it.'),
  })
  .superRefine((p, ctx) => {
    const base = checkServiceAddress(
      p.baseUrl,
      'The service address',
      'https://eu.virtualpatientengine.com/24.06',
    );
    if (base) ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: base });
    else if (!serviceVersion(p.baseUrl))
      ctx.addIssue({
        code: 'custom',
        path: ['baseUrl'],
        message: 'The service address must end with the version segment, e.g. …/24.06',
      });
    const auth = checkServiceAddress(p.authUrl, 'The sign-in address', 'https://vpengine.eu.auth0.com');
    if (auth) ctx.addIssue({ code: 'custom', path: ['authUrl'], message: auth });
  });
export type RemoteProfileInput = z.infer<typeof RemoteProfileInputSchema>;
