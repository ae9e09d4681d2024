import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { RunningEngine } from '../../engine/local-engine.js';
import { silentLogger } from '../../logging/logger.js';
import { boundSecret } from '../../secrets/secret-binding.js';
import { createKeytarSecretStore, type SecretStore } from '../../secrets/secret-store.js';
import { startTestEngine, withTempDir } from '../../service/test-engine.test-support.js';
import { ProfileStore } from '../../settings/profile-store.js';
import { EXIT, exitCodeOfError } from '../exit-codes.js';
import { engineSecret, ENGINE_SECRET_ENV } from './engine.js';
import { runTestAuth, type TestAuthDeps } from './test-auth.js';
import { rejection } from '../../../src-shared/errors.test-support.js';

/** A data folder of its own and the real keychain under a service name of the test's own. */
function deps(dataDir: string, extra: Partial<TestAuthDeps> = {}): TestAuthDeps {
  const profiles = new ProfileStore(dataDir);
  const secrets = createKeytarSecretStore(`scan2mesh-test-${randomUUID()}`);
  return {
    env: {},
    logger: silentLogger,
    startEngine: () => Promise.reject(new Error('the local engine is not expected here')),
    profiles: () => profiles,
    secrets: () => secrets,
    ...extra,
  };
}

const addressOf = (engine: RunningEngine) => ({
  baseUrl: engine.baseUrl,
  authUrl: engine.authUrl,
  audience: engine.audience,
  clientId: engine.clientId,
});

describe('scan2mesh test-auth', () => {
  it('signs in with the secret from the environment and prints the service’s message', async () => {
    const { engine } = await startTestEngine();
    try {
      await withTempDir(async (dir) => {
        const flags = addressOf(engine);
        const out: string[] = [];
        const ok = deps(dir, { env: { SCAN2MESH_CLIENT_SECRET: engine.clientSecret } });
        expect(await runTestAuth(flags, ok, (t) => out.push(t))).toBe(EXIT.ok);
        expect(out.join('')).toBe(
          `Connected to ${engine.baseUrl}: Authentication successful: scan2mesh local engine\n`,
        );
        const wrong = deps(dir, { env: { SCAN2MESH_CLIENT_SECRET: 'wrong' } });
        const refused = await rejection(runTestAuth(flags, wrong, () => {}));
        expect(refused.code).toBe('auth-failed');
        expect(exitCodeOfError(refused)).toBe(EXIT.authFailed);
      });
    } finally {
      await engine.close();
    }
  });

  it('tells an unreachable sign-in address apart, in words, with exit code 4', async () => {
    const { engine } = await startTestEngine();
    // A port that was free a moment ago: nothing listens there.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    try {
      await withTempDir(async (dir) => {
        const flags = { ...addressOf(engine), authUrl: `http://127.0.0.1:${port}/auth` };
        const unreachable = deps(dir, {
          env: { SCAN2MESH_CLIENT_SECRET: engine.clientSecret },
          client: { retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10 } },
        });
        const err = await rejection(runTestAuth(flags, unreachable, () => {}));
        expect(err.code).toBe('network');
        expect(err.message).toBe(
          `The sign-in address 127.0.0.1:${port} could not be reached: nothing answers at that address (connection refused).`,
        );
        expect(err.action).toMatch(/sign-in address/);
        expect(exitCodeOfError(err)).toBe(EXIT.unreachable);
        expect(engine.stats.tokenRequests).toBe(0);
      });
    } finally {
      await engine.close();
    }
  });

  it('uses the local engine when no connection is named, and stops it afterwards', async () => {
    await withTempDir(async (dir) => {
      let engine: RunningEngine | undefined;
      const out: string[] = [];
      const local = deps(dir, {
        startEngine: async () => (engine = (await startTestEngine()).engine),
      });
      expect(await runTestAuth({}, local, (t) => out.push(t))).toBe(EXIT.ok);
      expect(out.join('')).toMatch(/^Connected to the local engine: /);
      // Stopped: nothing answers at its address any more.
      const after = await fetch(`${engine!.baseUrl}/testAuth`).then(
        () => 'answered',
        () => 'refused',
      );
      expect(after).toBe('refused');
    });
  });
});

describe('a saved connection named with --profile', () => {
  /** The engine saved as the profile "EU"; its secret in the keychain when `stored`. */
  async function withProfile(
    run: (
      d: TestAuthDeps,
      engine: RunningEngine,
      secrets: SecretStore,
      id: string,
      /** What the keychain holds for the engine's secret typed for this profile. */
      stored: string,
    ) => Promise<void>,
  ): Promise<void> {
    const { engine } = await startTestEngine();
    try {
      await withTempDir(async (dir) => {
        const d = deps(dir);
        const profile = new ProfileStore(dir).save({ name: 'EU', ...addressOf(engine) });
        const secrets = d.secrets();
        try {
          await run(d, engine, secrets, profile.id, boundSecret(profile, engine.clientSecret));
        } finally {
          await secrets.delete(profile.id);
        }
      });
    } finally {
      await engine.close();
    }
  }

  it('takes its secret from the keychain, or from SCAN2MESH_CLIENT_SECRET when set', async () => {
    await withProfile(async (d, engine, secrets, id, stored) => {
      await secrets.set(id, stored);
      const out: string[] = [];
      expect(await runTestAuth({ profile: 'eu' }, d, (t) => out.push(t))).toBe(EXIT.ok);
      expect(out.join('')).toMatch(new RegExp(`^Connected to profile "EU" \\(${engine.baseUrl}\\): `));
      // The environment wins over the keychain: a wrong one there is refused.
      const wrongEnv = { ...d, env: { SCAN2MESH_CLIENT_SECRET: 'wrong' } };
      expect((await rejection(runTestAuth({ profile: 'EU' }, wrongEnv, () => {}))).code).toBe('auth-failed');
      await secrets.delete(id);
      const fromEnv = { ...d, env: { SCAN2MESH_CLIENT_SECRET: engine.clientSecret } };
      expect(await runTestAuth({ profile: 'EU' }, fromEnv, () => {})).toBe(EXIT.ok);
    });
  });

  it('says where to put the secret when there is none', async () => {
    await withProfile(async (d, engine) => {
      const none = await rejection(runTestAuth({ profile: 'EU' }, d, () => {}));
      expect(none.code).toBe('auth-failed');
      expect(none.message).toBe('No client secret is stored for the connection "EU".');
      expect(none.action).toMatch(/SCAN2MESH_CLIENT_SECRET/);
      expect(engine.stats.tokenRequests).toBe(0);
    });
  });
});

describe('scan2mesh engine', () => {
  it('keeps its secret in a file only the user can read, or takes it from the environment', async () => {
    await withTempDir(async (dir) => {
      // The data folder made by `engine`, run first, is private too (a review found it 0755).
      const data = join(dir, 'data');
      const made = await engineSecret({}, data);
      if (process.platform !== 'win32') expect((await stat(data)).mode & 0o777).toBe(0o700);
      expect(made.source).toBe('file');
      expect(made.file).toBe(join(data, 'engine-client-secret'));
      expect((await readFile(made.file as string, 'utf8')).trim()).toBe(made.secret);
      expect(made.secret.length).toBeGreaterThanOrEqual(40);
      if (process.platform !== 'win32') expect((await stat(made.file as string)).mode & 0o777).toBe(0o600);
      const given = await engineSecret({ [ENGINE_SECRET_ENV]: 'from-env' }, data);
      expect(given).toEqual({ secret: 'from-env', source: 'environment' });
    });
  });
});
