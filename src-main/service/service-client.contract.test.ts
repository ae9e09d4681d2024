import { afterEach, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { AppError } from '../../src-shared/errors.js';
import { closeRecordingServers, recordingServer, type Seen } from './recording-server.test-support.js';
import { runJob } from './run-job.test-support.js';
import { ServiceClient } from './service-client.js';
import { SCAN, SPIDER_STL, withTempDir } from './test-engine.test-support.js';

/**
 * The client against a scripted stand-in for the real service, written from service-interface.md
 * alone (not the local engine): exact paths, headers and bodies, and tolerance of what the interface
 * leaves open (extra fields, the 202 text).
 */
type Script = (req: Seen, res: ServerResponse) => void;

afterEach(closeRecordingServers);

/**
 * `onContinue`: how the server meets "Expect: 100-continue" (Node's own server sends 100 at once):
 * 'silent' sends nothing and reads the body when it comes, 'refuse' answers 417 and counts it.
 */
async function scripted(
  script: Script,
  onContinue?: 'silent' | 'refuse',
): Promise<{ origin: string; seen: Seen[]; refused: () => number }> {
  let refused = 0;
  const srv = await recordingServer(script, (server) => {
    if (onContinue === 'silent') server.on('checkContinue', (req, res) => server.emit('request', req, res));
    if (onContinue === 'refuse')
      server.on('checkContinue', (_req, res: ServerResponse) => {
        refused++;
        res.writeHead(417, { Connection: 'close' }).end();
      });
  });
  return { ...srv, refused: () => refused };
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res
    .writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) })
    .end(body);
}

function client(origin: string, authOrigin = origin): ServiceClient {
  return new ServiceClient({
    baseUrl: `${origin}/24.06`,
    authUrl: `${authOrigin}/idp`,
    audience: 'virtualpatientengine.com',
    clientId: 'client-1',
    clientSecret: 'secret-1',
    retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 3 },
  });
}

const TOKEN = 'tok_abcdefghijklmnopqrstuvwxyz012345';
const JOB = '3f1c2b9e-1111-4222-8333-944455556666';

/** A service as the interface shows it, with extra fields everywhere. */
function service(origin: () => string, overrides: Partial<Record<string, Script>> = {}): Script {
  let polls = 0;
  return (req, res) => {
    const path = req.path.split('?')[0] ?? '';
    const override = overrides[path];
    if (override) return override(req, res);
    if (path === '/idp/oauth/token')
      return json(res, 200, { access_token: TOKEN, token_type: 'Bearer', expires_in: 86400, scope: 'jobs' });
    if (path === '/24.06/job')
      return json(res, 200, {
        jobId: JOB,
        createdAt: '2024-06-01T00:00:00Z',
        presignedUploadUrl: {
          cbct: {
            presignedUploadUrl: `${origin()}/bucket/in/cbct.dcm?X-Amz-Signature=abc&X-Amz-Expires=900`,
            notifyFinishUploadUrl: `${origin()}/24.06/notify?jobId=${JOB}&input=cbct`,
            expiresIn: 900,
          },
        },
      });
    if (path === '/bucket/in/cbct.dcm' || path === '/24.06/notify') return res.writeHead(200).end();
    if (path === '/24.06/pollJobResults') {
      if (polls++ < 2) return res.writeHead(202, { 'Content-Type': 'text/plain' }).end('PROCESSING');
      return json(res, 200, {
        success: true,
        jobId: JOB,
        timings: { total: 312 },
        outputFiles: {
          meshes: [
            {
              status: 'Available',
              size: 68484,
              extension: '.stl',
              structures: ['mandible'],
              url: `${origin()}/bucket/out/0.stl?X-Amz-Signature=def`,
              checksum: 'x',
            },
          ],
          pointClouds: [],
        },
      });
    }
    if (path === '/bucket/out/0.stl') {
      void readFile(SPIDER_STL).then((b) => res.writeHead(200, { 'Content-Length': b.length }).end(b));
      return;
    }
    json(res, 404, { message: 'not found' });
  };
}

/** A job as the interface shows one: a .dcm in, a mandible out. */
const createMandibleJob = (c: ServiceClient): Promise<unknown> =>
  c.createJob({
    inputs: { cbct: { extension: '.dcm' } },
    meshes: [{ extension: '.stl', structures: ['mandible'] }],
  });

async function expectAppError(p: Promise<unknown>, code: AppError['code']): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  expect((e as AppError).code).toBe(code);
  return e as AppError;
}

describe('ServiceClient follows service-interface.md to the letter', () => {
  it('sends exactly the documented requests and tolerates extra fields', async () => {
    let origin = '';
    const srv = await scripted(service(() => origin));
    origin = srv.origin;
    const c = client(origin);
    await withTempDir(async (dir) => {
      const res = await runJob(
        c,
        {
          inputs: { cbct: { extension: '.dcm' } },
          meshes: [{ extension: '.stl', structures: ['mandible'] }],
        },
        { cbct: SCAN },
        dir,
        { poll: { initialMs: 10, maxMs: 20 } },
      );
      expect(res.outputs[0]?.path).toBe(join(dir, 'mandible.stl'));
      expect(await readdir(dir)).toEqual(['mandible.stl']);
    });
    c.close();
    const [token, job, upload, notify, ...rest] = srv.seen;
    expect(token?.method).toBe('POST');
    expect(token?.path).toBe('/idp/oauth/token');
    expect(token?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(token?.body.toString() ?? '')).toEqual({
      grant_type: 'client_credentials',
      audience: 'virtualpatientengine.com',
      client_id: 'client-1',
      client_secret: 'secret-1',
    });
    expect(job).toMatchObject({ method: 'POST', path: '/24.06/job' });
    expect(job?.headers['content-type']).toBe('application/json');
    expect(job?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(job?.body.toString() ?? '')).toEqual({
      inputFiles: { cbct: { extension: '.dcm' } },
      outputFiles: { meshes: [{ extension: '.stl', structures: ['mandible'] }] },
    });
    expect(upload).toMatchObject({
      method: 'PUT',
      path: '/bucket/in/cbct.dcm?X-Amz-Signature=abc&X-Amz-Expires=900',
    });
    expect(upload?.headers['content-type']).toBe('application/octet-stream');
    expect(Number(upload?.headers['content-length'])).toBe((await stat(SCAN)).size);
    expect(upload?.headers.authorization).toBeUndefined();
    expect(upload?.body.equals(await readFile(SCAN))).toBe(true);
    expect(notify).toMatchObject({ method: 'PUT', path: `/24.06/notify?jobId=${JOB}&input=cbct` });
    expect(notify?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(notify?.body.length).toBe(0);
    const polls = rest.filter((s) => s.path.startsWith('/24.06/pollJobResults'));
    expect(polls.map((p) => p.path)).toEqual(Array(3).fill(`/24.06/pollJobResults?jobId=${JOB}`));
    expect(polls.every((p) => p.method === 'GET' && p.headers.authorization === `Bearer ${TOKEN}`)).toBe(
      true,
    );
    const download = rest.at(-1);
    expect(download?.path).toBe('/bucket/out/0.stl?X-Amz-Signature=def');
    expect(download?.headers.authorization).toBeUndefined();
  });

  // A review: HTTP lets a server code its answer though the request asks for none. A gzipped job
  // answer was "malformed JSON", and a job the service had made was reported as one that may exist.
  it('reads JSON answers that come gzip-, deflate- or br-coded, having asked for none', async () => {
    for (const coding of ['gzip', 'deflate', 'br'] as const) {
      const code = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync }[coding];
      let origin = '';
      const inner = service(() => origin);
      const srv = await scripted((req, res) => {
        // Every JSON answer of the service and of its sign-in, coded.
        const writeHead = res.writeHead.bind(res);
        const end = res.end.bind(res);
        let json = false;
        res.writeHead = ((status: number, headers: Record<string, string | number> = {}) => {
          json = String(headers['Content-Type']).startsWith('application/json');
          if (!json) return writeHead(status, headers);
          const { 'Content-Length': _length, ...rest } = headers;
          return writeHead(status, { ...rest, 'Content-Encoding': coding });
        }) as typeof res.writeHead;
        res.end = ((body?: string | Buffer) =>
          json && body !== undefined ? end(code(Buffer.from(body))) : end(body)) as typeof res.end;
        inner(req, res);
      });
      origin = srv.origin;
      const c = client(origin);
      await withTempDir(async (dir) => {
        const res = await runJob(
          c,
          {
            inputs: { cbct: { extension: '.dcm' } },
            meshes: [{ extension: '.stl', structures: ['mandible'] }],
          },
          { cbct: SCAN },
          dir,
          { poll: { initialMs: 10, maxMs: 20 } },
        );
        expect(res.outputs[0]?.path, coding).toBe(join(dir, 'mandible.stl'));
      });
      c.close();
      const calls = srv.seen.filter((r) => !r.path.startsWith('/bucket/'));
      expect(calls.every((r) => r.headers['accept-encoding'] === 'identity')).toBe(true);
    }
  });

  it('reads /testAuth as a JSON array holding one string', async () => {
    let origin = '';
    const srv = await scripted(
      service(() => origin, {
        '/24.06/testAuth': (_req, res) => json(res, 200, ['Authentication successful!']),
      }),
    );
    origin = srv.origin;
    const c = client(origin);
    expect(await c.testAuth()).toBe('Authentication successful!');
    expect(srv.seen.at(-1)).toMatchObject({ method: 'GET', path: '/24.06/testAuth' });
    c.close();
  });

  it('says clearly which required field of a poll result is missing', async () => {
    let origin = '';
    const srv = await scripted(
      service(() => origin, {
        '/24.06/pollJobResults': (_req, res) => json(res, 200, { outputFiles: { meshes: [] }, extra: 1 }),
      }),
    );
    origin = srv.origin;
    const c = client(origin);
    const err = await expectAppError(c.pollOnce(JOB), 'service');
    expect(err.message).toContain('success');
    c.close();
  });

  it('takes a download whose size differs from the result’s size: its unit is not stated', async () => {
    let origin = '';
    const srv = await scripted(service(() => origin));
    origin = srv.origin;
    const c = client(origin);
    await withTempDir(async (dir) => {
      const got = await c.download(`${origin}/bucket/out/0.stl?X-Amz-Signature=def`, join(dir, 'm.stl'), {
        expectedSize: 67,
      });
      expect(got.bytes).toBe(68484);
      expect(await readdir(dir)).toEqual(['m.stl']);
    });
    expect(srv.seen.filter((s) => s.path.startsWith('/bucket/out/'))).toHaveLength(1);
    c.close();
  });

  it('downloads chunked answers too, with one GET, never with the token', async () => {
    let origin = '';
    const srv = await scripted(
      service(() => origin, {
        '/bucket/out/0.stl': (_req, res) => {
          void readFile(SPIDER_STL).then((b) => {
            res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
            res.write(b.subarray(0, 1000));
            res.end(b.subarray(1000));
          });
        },
      }),
    );
    origin = srv.origin;
    const c = client(origin);
    await withTempDir(async (dir) => {
      const got = await c.download(`${origin}/bucket/out/0.stl?X-Amz-Signature=def`, join(dir, 'm.stl'), {
        expectedSize: 68484,
      });
      expect(got.bytes).toBe(68484);
      expect((await readFile(got.path)).equals(await readFile(SPIDER_STL))).toBe(true);
    });
    expect(
      srv.seen.filter((s) => s.path.startsWith('/bucket/out/')).map((s) => s.headers.authorization),
    ).toEqual([undefined]);
    c.close();
  });

  it('sends the token to no address outside the configured service', async () => {
    const elsewhere = await scripted((_req, res) => res.writeHead(200).end());
    let origin = '';
    const srv = await scripted(
      service(() => origin, {
        '/24.06/job': (_req, res) =>
          json(res, 200, {
            jobId: JOB,
            presignedUploadUrl: {
              cbct: {
                presignedUploadUrl: `${elsewhere.origin}/bucket/in?sig=1`,
                // Another computer's: this computer's service under any loopback name and port is
                // the configured service's (url-policy.ts).
                notifyFinishUploadUrl: 'https://storage.example/notify',
              },
            },
          }),
      }),
    );
    origin = srv.origin;
    const c = client(origin);
    const err = await expectAppError(createMandibleJob(c), 'job-may-exist');
    // The job was made: its id is said, so that nothing creates a second one unasked.
    expect(err.message).toContain(`The service created job ${JOB}, but its answer cannot be used`);
    expect(err.message).toContain('not a site of the configured service');
    await expectAppError(c.notify('https://storage.example/notify'), 'service');
    expect(elsewhere.seen).toEqual([]);
    c.close();
  });

  it('accepts plain http only to this computer', async () => {
    const base = { authUrl: 'https://idp.example', audience: 'a', clientId: 'c', clientSecret: 's' };
    expect(() => new ServiceClient({ ...base, baseUrl: 'http://eu.virtualpatientengine.com/24.06' })).toThrow(
      /plain http to another computer/,
    );
    expect(() => new ServiceClient({ ...base, baseUrl: 'https://eu.virtualpatientengine.com' })).toThrow(
      /no version segment/,
    );
    const c = new ServiceClient({ ...base, baseUrl: 'https://eu.virtualpatientengine.com/24.06' });
    // Refused before any connection is made.
    await expectAppError(c.upload('http://storage.example/bucket?sig=1', SCAN), 'service');
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '[::1]']) {
      expect(() => new ServiceClient({ ...base, baseUrl: `http://${host}:9/24.06` })).not.toThrow();
    }
    c.close();
  });

  it('sends the job body after "100 Continue", or without it from a server that stays silent or refuses it', async () => {
    for (const mode of [undefined, 'silent', 'refuse'] as const) {
      let origin = '';
      const srv = await scripted(
        service(() => origin),
        mode,
      );
      origin = srv.origin;
      const c = new ServiceClient({
        baseUrl: `${origin}/24.06`,
        authUrl: `${origin}/idp`,
        audience: 'virtualpatientengine.com',
        clientId: 'client-1',
        clientSecret: 'secret-1',
        retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 3 },
        // A silent server gets the body after this wait, as curl does after 1 s.
        expectContinueMs: 50,
      });
      const created = await c.createJob({
        inputs: { cbct: { extension: '.dcm' } },
        meshes: [{ extension: '.stl', structures: ['mandible'] }],
      });
      expect(created.jobId).toBe(JOB);
      const jobs = srv.seen.filter((x) => x.path === '/24.06/job');
      // One job request reached the service, with its whole body, whatever the server did with Expect.
      expect(jobs).toHaveLength(1);
      expect(JSON.parse(jobs[0]!.body.toString()) as unknown).toMatchObject({
        outputFiles: expect.anything(),
      });
      expect(jobs[0]!.headers.expect).toBe(mode === 'refuse' ? undefined : '100-continue');
      expect(srv.refused()).toBe(mode === 'refuse' ? 1 : 0);
      c.close();
    }
  });

  it('reports a refused job body with the service’s own message', async () => {
    let origin = '';
    const srv = await scripted(
      service(() => origin, {
        '/24.06/job': (_req, res) => json(res, 400, { error: { message: 'Unknown structure "jaw"' } }),
      }),
    );
    origin = srv.origin;
    const c = client(origin);
    const err = await expectAppError(
      c.createJob({
        inputs: { cbct: { extension: '.dcm' } },
        meshes: [{ extension: '.stl', structures: ['jaw'] }],
      }),
      'service',
    );
    expect(err.message).toContain('400: Unknown structure "jaw"');
    // A refusal is an answer: not repeated, and not "may exist".
    expect(srv.seen.filter((s) => s.path === '/24.06/job')).toHaveLength(1);
    c.close();
  });

  it('never repeats the token or the client secret an error answer quotes, and says what a 403 means', async () => {
    let origin = '';
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjbGllbnQtMSJ9.c2lnbmF0dXJl';
    const srv = await scripted(
      service(() => origin, {
        '/24.06/job': (_req, res) =>
          json(res, 403, { message: `Token ${TOKEN} (client secret-1) not allowed; also saw ${jwt}` }),
      }),
    );
    origin = srv.origin;
    const c = client(origin);
    const err = await expectAppError(createMandibleJob(c), 'service');
    expect(err.message).toBe(
      'Job creation: the service answered 403: Token [redacted] (client [redacted]) not allowed; also saw [redacted].',
    );
    expect(err.action).toMatch(/does not allow this account that call: ask the service operator/);
    c.close();
  });

  it('cuts the secret and token out of answers that quote them escaped, in errors and in failed jobs', async () => {
    let origin = '';
    // JSON may write any character as \\uXXXX, and "/" as "\\/": the quoted credentials do not match as sent.
    const escaped = (text: string): string =>
      [...text].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const srv = await scripted(
      service(() => origin, {
        '/24.06/job': (_req, res) => {
          const body = `{"message": "Token ${escaped(TOKEN)} refused"}`;
          res.writeHead(403, { 'Content-Type': 'application/json' }).end(body);
        },
        '/24.06/pollJobResults': (_req, res) => {
          const body = `{"success": false, "message": "client secret ${escaped('secret-1')} is wrong"}`;
          res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
        },
      }),
    );
    origin = srv.origin;
    const c = client(origin);
    const refused = await expectAppError(createMandibleJob(c), 'service');
    expect(refused.message).toBe('Job creation: the service answered 403: Token [redacted] refused.');
    const failed = await expectAppError(c.pollOnce(JOB), 'job-failed');
    expect(failed.message).toBe(
      `The service reports job ${JOB} as failed: client secret [redacted] is wrong.`,
    );
    c.close();
  });

  it('downloads the meshes of a result whose sizes are no byte counts (null, a fraction, text, past 2^53)', async () => {
    for (const size of [null, 66.9, '68484', 2 ** 70, -1]) {
      let origin = '';
      const srv = await scripted(
        service(() => origin, {
          '/24.06/pollJobResults': (_req, res) =>
            json(res, 200, {
              success: true,
              outputFiles: {
                meshes: [
                  {
                    status: 'Available',
                    size,
                    extension: '.stl',
                    structures: ['mandible'],
                    url: `${origin}/bucket/out/0.stl?X-Amz-Signature=def`,
                  },
                ],
              },
            }),
        }),
      );
      origin = srv.origin;
      const c = client(origin);
      const poll = await c.pollOnce(JOB);
      expect(poll.state).toBe('finished');
      // The hint is left out; the address is kept, so the mesh is downloaded.
      expect(poll).toMatchObject({
        result: { outputFiles: { meshes: [{ size: undefined, url: expect.any(String) }] } },
      });
      c.close();
    }
  });
});
