import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rejection } from '../../../src-shared/errors.test-support.js';
import { resolveConnection } from '../../connections/connection-resolver.js';
import { boundSecret, secretFor } from '../../secrets/secret-binding.js';
import { createKeytarSecretStore, type SecretStore } from '../../secrets/secret-store.js';
import { withTempDir } from '../../service/test-engine.test-support.js';
import { ProfileStore } from '../../settings/profile-store.js';
import { profileHandlers } from './profiles.js';

const ADDRESSES = {
  baseUrl: 'https://eu.service.example/24.06',
  authUrl: 'https://signin.service.example',
  audience: 'service.example',
  clientId: 'client-1',
};

describe('secret binding', () => {
  it('gives a stored secret back only for the addresses it was typed for', () => {
    const stored = boundSecret(ADDRESSES, 'se:cr:et with spaces');
    expect(secretFor(ADDRESSES, stored)).toBe('se:cr:et with spaces');
    for (const field of ['baseUrl', 'authUrl', 'audience', 'clientId'] as const)
      expect(secretFor({ ...ADDRESSES, [field]: `${ADDRESSES[field]}x` }, stored)).toBeNull();
    // Stored unbound by an early version: it could be for any address, so it is not used.
    expect(secretFor(ADDRESSES, 'legacy-secret')).toBeNull();
    expect(secretFor(ADDRESSES, null)).toBeNull();
  });
});

describe('profiles.save', () => {
  it('never lets the old secret be used with a new sign-in address, even between its two writes', async () => {
    await withTempDir(async (dir) => {
      const keychain = createKeytarSecretStore(`scan2mesh-test-${randomUUID()}`);
      // The keychain's delete is held until the test lets it go: the edited profile is then written
      // and the old secret still stored, the moment a connection test or a job could read both.
      let deleteCalled!: () => void;
      const deleting = new Promise<void>((r) => (deleteCalled = r));
      let letDeleteGo!: () => void;
      const held = new Promise<void>((r) => (letDeleteGo = r));
      let hold = false;
      const secrets: SecretStore = {
        ...keychain,
        delete: async (account) => {
          if (hold) {
            deleteCalled();
            await held;
          }
          return keychain.delete(account);
        },
      };
      const profiles = new ProfileStore(dir);
      const handlers = profileHandlers({ profiles, secrets, events: { emit: () => undefined } });
      const saved = await handlers['profiles.save']({
        profile: { name: 'EU', ...ADDRESSES },
        clientSecret: 'typed-for-signin.service.example',
      });
      try {
        expect(saved.secretStored).toBe(true);
        expect((await resolveConnection(profiles.get(saved.id)!, { secrets })).clientSecret).toBe(
          'typed-for-signin.service.example',
        );
        hold = true;
        const edit = handlers['profiles.save']({
          profile: { id: saved.id, name: 'EU', ...ADDRESSES, authUrl: 'https://elsewhere.example' },
        });
        await deleting;
        const now = profiles.get(saved.id)!;
        expect(now.authUrl).toBe('https://elsewhere.example');
        // The old secret is still in the keychain here, but not for this address.
        expect(await keychain.get(saved.id)).not.toBeNull();
        const e = await rejection(resolveConnection(now, { secrets }));
        expect(e).toMatchObject({ code: 'auth-failed' });
        const listed = await handlers['profiles.list']({});
        expect(listed.profiles.find((p) => p.id === saved.id)?.secretStored).toBe(false);
        letDeleteGo();
        expect((await edit).secretStored).toBe(false);
        expect(await keychain.get(saved.id)).toBeNull();
      } finally {
        letDeleteGo();
        await keychain.delete(saved.id);
      }
    });
  });
});
