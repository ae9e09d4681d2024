import { describe, expect, it } from 'vitest';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { AppError } from '../../../src-shared/errors.js';
import { silentLogger } from '../../logging/logger.js';
import { openConnection, type ConnectionDeps } from '../../service/connection.js';
import { startTestEngine, withTempDir } from '../../service/test-engine.test-support.js';
import { EXIT, exitCodeOfError } from '../exit-codes.js';
import { engineSecret, ENGINE_SECRET_ENV } from './engine.js';
import { runTestAuth } from './test-auth.js';

function deps(extra: Partial<ConnectionDeps> = {}): ConnectionDeps {
  return {
    env: {},
    logger: silentLogger,
    startEngine: () => Promise.reject(new Error('the local engine is not expected here')),
    profiles: () => ({ get: () => undefined, list: () => [] }),
    secrets: () => ({ get: () => Promise.resolve(null) }),
    ...extra,
  };
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('scan2mesh test-auth', () => {
  it('signs in with the secret from the environment and prints the service’s message', async () => {
    const { engine } = await startTestEngine();
    try {
      const flags = {
        baseUrl: engine.baseUrl,
        authUrl: engine.authUrl,
        audience: engine.audience,
        clientId: engine.clientId,
      };
      const out: string[] = [];
      const ok = deps({ env: { SCAN2MESH_CLIENT_SECRET: engine.clientSecret } });
      expect(await runTestAuth(flags, ok, (t) => out.push(t))).toBe(EXIT.ok);
      expect(out.join('')).toBe(
        `Connected to ${engine.baseUrl}: Authentication successful: scan2mesh local engine\n`,
      );
      const wrong = deps({ env: { SCAN2MESH_CLIENT_SECRET: 'wrong' } });
      const refused = await rejection(runTestAuth(flags, wrong, () => {}));
      expect(refused.code).toBe('auth-failed');
      expect(exitCodeOfError(refused)).toBe(EXIT.authFailed);
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
      const flags = {
        baseUrl: engine.baseUrl,
        authUrl: `http://127.0.0.1:${port}/auth`,
        audience: engine.audience,
        clientId: engine.clientId,
      };
      const unreachable = deps({
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
    } finally {
      await engine.close();
    }
  });

  it('uses the local engine when no connection is named, and closes it afterwards', async () => {
    const { engine } = await startTestEngine();
    let closed = 0;
    const out: string[] = [];
    const local = deps({
      startEngine: () =>
        Promise.resolve({
          ...engine,
          close: () => {
            closed++;
            return Promise.resolve();
          },
        }),
    });
    try {
      expect(await runTestAuth({}, local, (t) => out.push(t))).toBe(EXIT.ok);
      expect(out.join('')).toMatch(/^Connected to the local engine: /);
      expect(closed).toBe(1);
    } finally {
      await engine.close();
    }
  });
});

describe('connections named on the command line', () => {
  const flags = {
    baseUrl: 'https://eu.example/24.06',
    authUrl: 'https://idp.example',
    audience: 'a',
    clientId: 'c',
  };
  const profileDeps = deps({
    profiles: () => ({
      get: (n) => (n === 'EU' ? { id: 'p1', name: 'EU', kind: 'remote', ...flags } : undefined),
      list: () => [],
    }),
    secrets: () => ({ get: (account) => Promise.resolve(account === 'p1' ? 'from-keychain' : null) }),
  });

  it('takes a secret only from the environment or the keychain', async () => {
    const err = await rejection(openConnection(flags, profileDeps));
    expect(err.code).toBe('bad-input');
    expect(err.message).toMatch(/SCAN2MESH_CLIENT_SECRET/);
    const conn = await openConnection({ profile: 'EU' }, profileDeps);
    expect(conn.kind).toBe('remote');
    expect(conn.label).toBe('profile "EU" (https://eu.example/24.06)');
    await conn.close();
    const none = await rejection(
      openConnection(
        { profile: 'EU' },
        { ...profileDeps, secrets: () => ({ get: () => Promise.resolve(null) }) },
      ),
    );
    expect(none.code).toBe('auth-failed');
    expect(none.action).toMatch(/SCAN2MESH_CLIENT_SECRET/);
  });

  it('refuses incomplete or contradictory connection flags', async () => {
    expect((await rejection(openConnection({ baseUrl: flags.baseUrl }, profileDeps))).message).toMatch(
      /also needs --auth-url, --audience, --client-id/,
    );
    expect((await rejection(openConnection({ profile: 'EU', clientId: 'x' }, profileDeps))).message).toMatch(
      /either --profile or --client-id/,
    );
    expect((await rejection(openConnection({ profile: 'nope' }, profileDeps))).message).toMatch(
      /No connection profile named "nope"/,
    );
  });
});

describe('scan2mesh engine', () => {
  it('keeps its secret in a file only the user can read, or takes it from the environment', async () => {
    await withTempDir(async (dir) => {
      const made = await engineSecret({}, dir);
      expect(made.source).toBe('file');
      expect(made.file).toBe(join(dir, 'engine-client-secret'));
      expect((await readFile(made.file as string, 'utf8')).trim()).toBe(made.secret);
      expect(made.secret.length).toBeGreaterThanOrEqual(40);
      if (process.platform !== 'win32') expect((await stat(made.file as string)).mode & 0o777).toBe(0o600);
      const given = await engineSecret({ [ENGINE_SECRET_ENV]: 'from-env' }, dir);
      expect(given).toEqual({ secret: 'from-env', source: 'environment' });
    });
  });
});
