import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createKeytarSecretStore, type SecretStore } from './secret-store.js';
import {
  keyringAvailable,
  NO_KEYRING_REASON,
  ensureKeyring,
  type PrivateKeyring,
} from './private-keyring.test-support.js';

// A real gnome-keyring on a private D-Bus bus: the same libsecret path the app takes on Linux.
describe.skipIf(!keyringAvailable())(
  'keytar secret store against a real gnome-keyring' + (keyringAvailable() ? '' : NO_KEYRING_REASON),
  () => {
    let keyring: PrivateKeyring;
    let store: SecretStore;
    const service = `scan2mesh-test-${randomUUID()}`;

    beforeAll(() => {
      keyring = ensureKeyring();
      store = createKeytarSecretStore(service);
    });
    afterAll(() => keyring?.stop());

    it('stores, reads, reports and deletes a secret', async () => {
      expect(await store.has('profile-a')).toBe(false);
      expect(await store.get('profile-a')).toBeNull();
      await store.set('profile-a', 's3cr3t-ä-✓');
      expect(await store.has('profile-a')).toBe(true);
      expect(await store.get('profile-a')).toBe('s3cr3t-ä-✓');
      expect(await store.delete('profile-a')).toBe(true);
      expect(await store.has('profile-a')).toBe(false);
      expect(await store.delete('profile-a')).toBe(false);
    });

    it('keeps accounts apart and overwrites on set', async () => {
      await store.set('a', 'one');
      await store.set('b', 'two');
      await store.set('a', 'three');
      expect(await store.get('a')).toBe('three');
      expect(await store.get('b')).toBe('two');
    });

    it('refuses an empty secret with a clear error', async () => {
      await expect(store.set('c', '')).rejects.toMatchObject({ code: 'bad-request' });
    });
  },
);
