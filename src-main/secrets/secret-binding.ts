import { createHash } from 'node:crypto';
import { SECRET_BOUND_FIELDS, type ConnectionProfile } from '../../src-shared/profiles.js';

/**
 * A client secret is stored together with what it was typed for (a hash of the connection's service
 * address, sign-in address, audience and client id), and read back only for those same values.
 *
 * Why in the stored value itself: deleting the secret when a connection is edited is not enough. The
 * profile file and the keychain are two stores, written one after the other; a connection test or a
 * job that read the edited profile between the two writes sent the old secret to the new address (an
 * audit reproduced it in a dozen tries). A secret that carries its binding cannot be used with any
 * other address, whatever the order of writes, and whichever process reads it.
 */

const PREFIX = 's2m-bound-v1:';
const HASH_HEX = 64;

type BoundFields = Pick<ConnectionProfile, (typeof SECRET_BOUND_FIELDS)[number]>;

function bindingOf(profile: BoundFields): string {
  return createHash('sha256')
    .update(SECRET_BOUND_FIELDS.map((f) => profile[f]).join('\n'))
    .digest('hex');
}

/** What the keychain keeps for `secret`, typed for `profile` as it is saved. */
export function boundSecret(profile: BoundFields, secret: string): string {
  return `${PREFIX}${bindingOf(profile)}:${secret}`;
}

/**
 * The secret in `stored` when it was typed for `profile` as it is now; null when it was typed for other
 * addresses (the connection was edited since) or nothing is stored.
 *
 * A value without the prefix (stored by an early version, which deleted the secret on every edit
 * instead) says nothing of what it was typed for, so it is not used: taken as it was, an edit racing a
 * connection test sent it to the edited sign-in address (an audit reproduced it). The connection then
 * asks for its secret again, once.
 */
export function secretFor(profile: BoundFields, stored: string | null): string | null {
  if (stored === null || stored === '' || !stored.startsWith(PREFIX)) return null;
  const rest = stored.slice(PREFIX.length);
  if (rest.charAt(HASH_HEX) !== ':' || rest.slice(0, HASH_HEX) !== bindingOf(profile)) return null;
  return rest.slice(HASH_HEX + 1) || null;
}

/** True when a saved edit changes where the stored secret would be sent. */
export function secretBindingChanged(before: BoundFields, after: BoundFields): boolean {
  return SECRET_BOUND_FIELDS.some((f) => before[f] !== after[f]);
}
