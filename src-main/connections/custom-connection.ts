import { createHash } from 'node:crypto';

/** Where a service is and who the client is: what a job keeps of a connection given on the command line. */
export interface ConnectionAddress {
  baseUrl: string;
  authUrl: string;
  audience: string;
  clientId: string;
}

/** A connection given on the command line (--base-url ... and SCAN2MESH_CLIENT_SECRET) rather than saved. */
export interface CustomConnection extends ConnectionAddress {
  clientSecret: string;
  /** Shown in the job list; the address's host when absent. */
  name?: string;
}

const CUSTOM_PREFIX = 'custom:';

/** The id under which a command-line connection's jobs are kept, stable for the same service and client. */
export function customProfileId(c: ConnectionAddress): string {
  const h = createHash('sha256')
    .update(`${c.baseUrl}\n${c.authUrl}\n${c.audience}\n${c.clientId}`)
    .digest('hex');
  return `${CUSTOM_PREFIX}${h.slice(0, 16)}`;
}

/** Whether jobs under this id were submitted with a connection given on the command line. */
export function isCustomProfileId(profileId: string): boolean {
  return profileId.startsWith(CUSTOM_PREFIX);
}

/** What a command-line connection is called in lists: its name, else its address's host. */
export function customConnectionName(c: CustomConnection): string {
  return c.name ?? hostOf(c.baseUrl);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
