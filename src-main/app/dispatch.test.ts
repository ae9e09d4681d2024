import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCore } from './core.test-support.js';
import { CHANNEL_NAMES } from '../../src-shared/channels.js';
import {
  keyringAvailable,
  NO_KEYRING_REASON,
  ensureKeyring,
  type PrivateKeyring,
} from '../secrets/private-keyring.test-support.js';

describe.skipIf(!keyringAvailable())(
  'dispatch (secrets in a real gnome-keyring)' + (keyringAvailable() ? '' : NO_KEYRING_REASON),
  () => {
    let keyring: PrivateKeyring;
    beforeAll(() => {
      keyring = ensureKeyring();
    });
    afterAll(() => keyring?.stop());

    it('has a handler for every channel of the contract', async () => {
      const core = testCore();
      for (const channel of CHANNEL_NAMES) {
        // An empty payload may be refused, but never as an unknown channel.
        const r = await core.dispatch(channel, {});
        if (!r.ok) expect(r.error.message).not.toMatch(/Unknown channel/);
      }
    });

    it('refuses an unknown channel and an invalid payload with a clear error', async () => {
      const core = testCore();
      expect(await core.dispatch('secrets.dump', {})).toMatchObject({
        ok: false,
        error: { code: 'bad-request' },
      });
      const r = await core.dispatch('profiles.save', { profile: { name: '', baseUrl: 'ftp://x' } });
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('bad-request');
        expect(r.error.message).toMatch(/profile\.name/);
      }
      // Extra fields are refused: the contract is strict about what the renderer may send.
      expect(await core.dispatch('app.info', { evil: true })).toMatchObject({ ok: false });
    });

    it('saves a remote profile, stores its secret in the secret store and never returns it', async () => {
      const core = testCore();
      const saved = await core.dispatch('profiles.save', {
        profile: {
          name: 'Relu EU 24.06',
          baseUrl: 'https://eu.virtualpatientengine.com/24.06/',
          authUrl: 'https://vpengine.eu.auth0.com',
          audience: 'virtualpatientengine.com',
          clientId: 'abc',
        },
        clientSecret: 'top-secret-value',
      });
      expect(saved).toMatchObject({
        ok: true,
        value: { secretStored: true, baseUrl: 'https://eu.virtualpatientengine.com/24.06' },
      });
      const list = await core.dispatch('profiles.list', {});
      expect(JSON.stringify(list)).not.toContain('top-secret-value');
      expect(list).toMatchObject({
        ok: true,
        value: { profiles: [{ id: 'local-engine', active: true }, { name: 'Relu EU 24.06' }] },
      });
    });

    it('refuses plain http to another computer and a base address without a version', async () => {
      const core = testCore();
      const r = await core.dispatch('profiles.save', {
        profile: {
          name: 'x',
          baseUrl: 'http://10.0.0.5',
          authUrl: 'https://a.example',
          audience: 'a',
          clientId: 'c',
        },
      });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.message).toMatch(/plain http/);
      const v = await core.dispatch('profiles.save', {
        profile: {
          name: 'x',
          baseUrl: 'https://s.example',
          authUrl: 'https://a.example',
          audience: 'a',
          clientId: 'c',
        },
      });
      if (!v.ok) expect(v.error.message).toMatch(/version segment/);
      else throw new Error('accepted a base address without a version');
    });
  },
);
