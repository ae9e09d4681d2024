import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { rejection } from '../../src-shared/errors.test-support.js';
import { silentLogger } from '../logging/logger.js';
import { createAgents, destroyAgents } from './http-transport.js';
import { DEFAULT_RETRY } from './retry.js';
import { TokenManager } from './token-manager.js';

const SECRET = 'S3cr3t-value-9f8e7d';
let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** An identity provider that refuses every request, quoting back what it was sent, as some do. */
async function quotingProvider(): Promise<URL> {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const sent = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { client_secret: string };
      const body = JSON.stringify({
        error: 'access_denied',
        error_description: `bad client_secret ${sent.client_secret} for this client`,
      });
      res.writeHead(401, { 'Content-Type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return new URL(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/oauth/token`);
}

/** A token manager of a test client signing in at `tokenUrl`. */
function tokensFrom(tokenUrl: URL, agents: ReturnType<typeof createAgents>): TokenManager {
  return new TokenManager({
    tokenUrl,
    audience: 'a',
    clientId: 'c',
    clientSecret: SECRET,
    agents,
    retry: DEFAULT_RETRY,
    idleTimeoutMs: 5_000,
    logger: silentLogger,
  });
}

describe('TokenManager', () => {
  it('says why the identity provider refused, without the secret it may quote back', async () => {
    const agents = createAgents();
    try {
      const tokens = tokensFrom(await quotingProvider(), agents);
      const err = await rejection(tokens.get());
      expect(err.code).toBe('auth-failed');
      expect(err.message).toBe(
        'Sign-in refused (401: access_denied: bad client_secret [redacted] for this client).',
      );
      expect(err.message).not.toContain(SECRET);
    } finally {
      destroyAgents(agents);
    }
  });

  it('takes a token answered without expires_in for the 24 hours the interface states, once', async () => {
    // A review's service answered {access_token, token_type} only: the answer was thrown away and
    // the token asked for again without end, the job never started.
    await expectOneTokenFor((asked) => ({ access_token: `t${asked}`, token_type: 'Bearer' }));
  });

  it('reads expires_in given as a string of digits as its number', async () => {
    await expectOneTokenFor((asked) => ({
      access_token: `t${asked}`,
      token_type: 'Bearer',
      expires_in: '86400',
    }));
  });
});

/** A sign-in answering `answer` (given how many times it was asked): its first token is kept and reused. */
async function expectOneTokenFor(answer: (asked: number) => Record<string, unknown>): Promise<void> {
  let asked = 0;
  server = createServer((_req, res) => {
    asked++;
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer(asked)));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const agents = createAgents();
  try {
    const tokens = tokensFrom(
      new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/token`),
      agents,
    );
    expect(await tokens.get()).toBe('t1');
    expect(await tokens.get()).toBe('t1');
    expect(asked).toBe(1);
  } finally {
    destroyAgents(agents);
  }
}
