import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LOCAL_ENGINE_PROFILE } from '../../src-shared/profiles.js';
import type { RunningEngine } from '../engine/local-engine.js';
import { silentLogger } from '../logging/logger.js';
import { boundSecret } from '../secrets/secret-binding.js';
import { createKeytarSecretStore } from '../secrets/secret-store.js';
import { startTestEngine, withTempDir } from '../service/test-engine.test-support.js';
import { ProfileStore } from '../settings/profile-store.js';
import { Connections, resolveConnection, tokenAccount } from './connection-resolver.js';
import { customProfileId, type CustomConnection } from './custom-connection.js';
import { rejection } from '../../src-shared/errors.test-support.js';

const customOf = (engine: RunningEngine): CustomConnection => ({
  baseUrl: engine.baseUrl,
  authUrl: engine.authUrl,
  audience: engine.audience,
  clientId: engine.clientId,
  clientSecret: engine.clientSecret,
});

/** A real engine, a profile store in a folder of its own and the keychain under a test service name. */
async function withSources(
  run: (s: {
    engine: RunningEngine;
    profiles: ProfileStore;
    secrets: ReturnType<typeof createKeytarSecretStore>;
  }) => Promise<void>,
): Promise<void> {
  const { engine } = await startTestEngine();
  try {
    await withTempDir(async (dir) =>
      run({
        engine,
        profiles: new ProfileStore(dir),
        secrets: createKeytarSecretStore(`scan2mesh-test-${randomUUID()}`),
      }),
    );
  } finally {
    await engine.close();
  }
}

describe('Connections', () => {
  it('shares one signed-in client per connection given on the command line', async () => {
    await withSources(async ({ engine, profiles, secrets }) => {
      const custom = customOf(engine);
      const connections = new Connections({ profiles, secrets, custom: [custom], logger: silentLogger });
      try {
        const id = customProfileId(custom);
        const filed = connections.describe(undefined);
        expect(filed).toEqual({
          profileId: id,
          profileName: new URL(engine.baseUrl).host,
          connection: {
            baseUrl: custom.baseUrl,
            authUrl: custom.authUrl,
            audience: custom.audience,
            clientId: custom.clientId,
          },
        });
        expect(connections.canResolve({ profileId: id })).toBe(true);
        const [a, b] = await Promise.all([connections.resolve(filed), connections.resolve(filed)]);
        expect(a).toBe(b);
        expect(a).toMatchObject({ profileId: id, kind: 'custom', baseUrl: engine.baseUrl });
        expect(await connections.tokenRequests()).toBe(1);
      } finally {
        await connections.close();
        await secrets.delete(tokenAccount(customProfileId(custom)));
      }
    });
  });

  it('says what to do for jobs it cannot reach: command-line connections not given, removed profiles', async () => {
    await withSources(async ({ engine, profiles, secrets }) => {
      const connections = new Connections({ profiles, secrets, logger: silentLogger });
      try {
        const custom = customOf(engine);
        const job = { profileId: customProfileId(custom), connection: custom };
        expect(connections.canResolve(job)).toBe(false);
        const notGiven = await rejection(connections.resolve(job));
        expect(notGiven.code).toBe('auth-failed');
        expect(notGiven.message).toBe(
          `This job was submitted with a connection given on the command line (${engine.baseUrl}, client ${engine.clientId}).`,
        );
        expect(notGiven.action).toMatch(/scan2mesh resume.*SCAN2MESH_CLIENT_SECRET/);
        const removed = await rejection(connections.resolve({ profileId: 'gone' }));
        expect(removed.code).toBe('not-found');
        expect(removed.action).toMatch(/Add the connection again/);
        // Without a local engine here, jobs for it are left for a process that has one.
        expect(connections.canResolve({ profileId: LOCAL_ENGINE_PROFILE.id })).toBe(false);
        expect(() => connections.describe(LOCAL_ENGINE_PROFILE.id)).toThrow(/not available here/);
        expect(engine.stats.tokenRequests).toBe(0);
      } finally {
        await connections.close();
      }
    });
  });

  it('signs in to a saved profile with the secret from the store, and starts the local engine on first use', async () => {
    await withSources(async ({ engine, profiles, secrets }) => {
      const profile = profiles.save({ name: 'EU', ...customOf(engine) });
      const { id } = profile;
      let started = 0;
      const connections = new Connections({
        profiles,
        secrets,
        localEngine: () => {
          started++;
          return Promise.resolve(engine);
        },
        logger: silentLogger,
      });
      try {
        const none = await rejection(connections.resolve({ profileId: id }));
        expect(none.code).toBe('auth-failed');
        expect(none.message).toBe('No client secret is stored for the connection "EU".');
        expect(none.action).toMatch(/Open Connections, edit this connection/);
        await secrets.set(id, boundSecret(profile, engine.clientSecret));
        // A failure is not kept: the next job asks again, and finds the secret.
        expect(await connections.resolve({ profileId: id })).toMatchObject({
          profileName: 'EU',
          kind: 'remote',
        });
        expect(started).toBe(0);
        const local = await connections.resolve({ profileId: LOCAL_ENGINE_PROFILE.id });
        expect(local).toMatchObject({ profileName: LOCAL_ENGINE_PROFILE.name, kind: 'local-engine' });
        expect(started).toBe(1);
        // connect(): a client of its own, not yet signed in.
        const own = await connections.connect({ profileId: id });
        expect(own.client).not.toBe((await connections.resolve({ profileId: id })).client);
        expect(own.client.tokenRequests).toBe(0);
        own.client.close();
      } finally {
        await connections.close();
        await secrets.delete(id);
      }
    });
  });
});

describe('the token of a connection (§5.5: cached and reused until near expiry)', () => {
  it('is kept in the keychain: a second run signs in with it; a refused one is replaced', async () => {
    await withSources(async ({ engine, profiles, secrets }) => {
      const profile = profiles.save({ name: 'EU', ...customOf(engine) });
      const { id } = profile;
      await secrets.set(id, boundSecret(profile, engine.clientSecret));
      // Each run of the command line has Connections of its own; the keychain is what they share.
      const run = async (): Promise<void> => {
        const connections = new Connections({ profiles, secrets, logger: silentLogger });
        try {
          await connections.resolve({ profileId: id });
        } finally {
          await connections.close();
        }
      };
      try {
        await run();
        expect(engine.stats.tokensIssued).toBe(1);
        expect(await secrets.get(tokenAccount(id))).toMatch(/"token"/);
        await run();
        expect(engine.stats.tokensIssued).toBe(1);
        // The service no longer takes it (expired early, revoked): the 401 brings a new one.
        engine.expireTokens();
        await run();
        expect(engine.stats.tokensIssued).toBe(2);
        await run();
        expect(engine.stats.tokensIssued).toBe(2);
      } finally {
        await secrets.delete(id);
        await secrets.delete(tokenAccount(id));
      }
    });
  });

  it('is kept for a connection given on the command line too, and only for the secret it was given', async () => {
    await withSources(async ({ engine, profiles, secrets }) => {
      const run = async (custom: CustomConnection): Promise<unknown> => {
        const connections = new Connections({ profiles, secrets, custom: [custom], logger: silentLogger });
        try {
          return await connections.resolve(connections.describe(undefined)).then(
            () => undefined,
            (e: unknown) => e,
          );
        } finally {
          await connections.close();
        }
      };
      const custom = customOf(engine);
      const account = tokenAccount(customProfileId(custom));
      try {
        expect(await run(custom)).toBeUndefined();
        expect(engine.stats.tokensIssued).toBe(1);
        expect(await secrets.get(account)).toMatch(/"token"/);
        expect(await run(custom)).toBeUndefined();
        expect(engine.stats.tokensIssued).toBe(1);
        // The same service and client with a wrong secret: the kept token is not lent to it.
        const wrong = await run({ ...custom, clientSecret: 'not-the-secret' });
        expect(wrong).toMatchObject({ code: 'auth-failed' });
        expect(engine.stats.tokensIssued).toBe(1);
      } finally {
        await secrets.delete(account);
      }
    });
  });

  it('is not used for another sign-in address or client of the same saved connection', async () => {
    await withSources(async ({ engine, profiles, secrets }) => {
      const profile = profiles.save({ name: 'EU', ...customOf(engine) });
      const { id } = profile;
      await secrets.set(id, boundSecret(profile, engine.clientSecret));
      try {
        const stale = { token: 'issued-for-another-client', renewAt: Date.now() + 3600_000, binding: 'x' };
        await secrets.set(tokenAccount(id), JSON.stringify(stale));
        const connections = new Connections({ profiles, secrets, logger: silentLogger });
        try {
          await connections.resolve({ profileId: id });
        } finally {
          await connections.close();
        }
        expect(engine.stats.unauthorized).toBe(0);
        expect(engine.stats.tokensIssued).toBe(1);
      } finally {
        await secrets.delete(id);
        await secrets.delete(tokenAccount(id));
      }
    });
  });
});

describe('resolveConnection', () => {
  it('gives a saved profile’s addresses and secret, and the running engine’s for the local engine', async () => {
    await withSources(async ({ engine, profiles, secrets }) => {
      const saved = profiles.save({ name: 'EU', ...customOf(engine) });
      try {
        await secrets.set(saved.id, boundSecret(saved, 'the-secret'));
        expect(await resolveConnection(saved, { secrets })).toEqual({
          profileId: saved.id,
          profileName: 'EU',
          baseUrl: engine.baseUrl,
          authUrl: engine.authUrl,
          audience: engine.audience,
          clientId: engine.clientId,
          clientSecret: 'the-secret',
        });
        const local = await resolveConnection(LOCAL_ENGINE_PROFILE, {
          secrets,
          localEngine: () => Promise.resolve(engine),
        });
        expect(local).toMatchObject({ baseUrl: engine.baseUrl, clientSecret: engine.clientSecret });
      } finally {
        await secrets.delete(saved.id);
      }
    });
  });
});
