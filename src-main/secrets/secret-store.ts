import type * as KeytarModule from 'keytar';
import { AppError } from '../../src-shared/errors.js';

/** Where client secrets live. The only implementation the app uses is the OS keychain. */
export interface SecretStore {
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
  has(account: string): Promise<boolean>;
}

const KEYCHAIN_SERVICE = 'scan2mesh';

type Keytar = typeof KeytarModule;

const UNAVAILABLE_ACTION =
  'Make sure the system keychain is running and unlocked (GNOME Keyring or KWallet on Linux, Keychain on macOS, Credential Manager on Windows), then try again.';

/**
 * The OS keychain through keytar (libsecret on Linux, Keychain on macOS, Credential Manager on Windows).
 * keytar is loaded lazily so that the commands that never need a secret still work where it cannot load.
 */
export function createKeytarSecretStore(service = KEYCHAIN_SERVICE): SecretStore {
  let keytar: Promise<Keytar> | undefined;
  const load = (): Promise<Keytar> => {
    keytar ??= import('keytar').then((m) => ((m as { default?: Keytar }).default ?? m) as Keytar);
    return keytar;
  };
  const call = async <T>(what: string, fn: (k: Keytar) => Promise<T>): Promise<T> => {
    let k: Keytar;
    try {
      k = await load();
    } catch (e) {
      throw new AppError('secret-store', 'The system keychain library could not be loaded.', {
        action: UNAVAILABLE_ACTION,
        cause: e,
      });
    }
    try {
      return await fn(k);
    } catch (e) {
      throw new AppError('secret-store', `The system keychain refused to ${what}.`, {
        action: UNAVAILABLE_ACTION,
        retryable: true,
        cause: e,
      });
    }
  };
  return {
    get: (account) => call('read a secret', (k) => k.getPassword(service, account)),
    set: (account, secret) => {
      if (!secret) return Promise.reject(new AppError('bad-request', 'An empty secret cannot be stored.'));
      return call('store a secret', (k) => k.setPassword(service, account, secret));
    },
    delete: (account) => call('delete a secret', (k) => k.deletePassword(service, account)),
    has: async (account) => (await call('read a secret', (k) => k.getPassword(service, account))) !== null,
  };
}
