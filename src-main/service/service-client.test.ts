import { describe, expect, it } from 'vitest';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import type { RunningEngine } from '../engine/local-engine.js';
import { createLogger } from '../logging/logger.js';
import { readLogs } from '../logging/log-files.test-support.js';
import { createMemoryLogger, type LogEntry } from '../logging/memory-logger.test-support.js';
import { PresignedRefusedError, type ServiceClient, type PollState } from './service-client.js';
import { waitForResult } from './run-job.test-support.js';
import {
  BUNNY_PLY,
  clientFor,
  runTestJob,
  SCAN,
  SPEC,
  SPIDER_STL,
  startTestEngine,
  TEST_POLL,
  withTempDir,
  type TestEngine,
} from './test-engine.test-support.js';

async function withEngine<T>(
  opts: Parameters<typeof startTestEngine>[0],
  fn: (t: TestEngine & { client: ServiceClient; log: LogEntry[] }) => Promise<T>,
): Promise<T> {
  const t = await startTestEngine(opts);
  // The client's log records each retry and the delay it chose: tests check that, not the clock.
  const logger = createMemoryLogger();
  const client = clientFor(t.engine, { logger });
  try {
    const result = await fn({ ...t, client, log: logger.entries });
    // Whatever the test did, the client never sent its token to a pre-signed address.
    noPresignedAuth(t.engine);
    return result;
  } finally {
    client.close();
    await t.engine.close();
  }
}

async function expectAppError(p: Promise<unknown>, code: AppError['code']): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe(code);
    return e as AppError;
  }
  throw new Error(`expected an AppError ${code}, but the call succeeded`);
}

/** Byte equality without vitest's element-by-element diffing, which takes seconds on megabytes. */
async function sameFile(a: string, b: string): Promise<boolean> {
  return (await readFile(a)).equals(await readFile(b));
}

/** The retries the client scheduled, as it logged them. */
function retries(log: LogEntry[]): { call: unknown; delayMs: unknown }[] {
  return log.filter((e) => e.msg === 'retrying').map((e) => ({ call: e.data.call, delayMs: e.data.delayMs }));
}

function noPresignedAuth(engine: RunningEngine): void {
  expect(engine.stats.authHeaderOnPresigned).toBe(0);
}

describe('ServiceClient against the local engine on loopback', () => {
  it('runs a job end to end: token, job, upload, notify, poll, download', async () => {
    await withEngine({}, async ({ engine, client, calls, inputsReceived }) =>
      withTempDir(async (dir) => {
        const polls: PollState[] = [];
        const uploaded: number[] = [];
        const res = await runTestJob(client, SPEC, { cbct: SCAN }, dir, {
          onPoll: (s) => polls.push(s),
          onUploadProgress: (_input, sent) => uploaded.push(sent),
        });
        expect(res.jobId).toMatch(/^[0-9a-f-]{36}$/);
        expect(res.outputs.map((o) => o.path)).toEqual([
          join(dir, 'mandible.stl'),
          join(dir, 'left_nerve+right_nerve.ply'),
        ]);
        expect(await sameFile(join(dir, 'mandible.stl'), SPIDER_STL)).toBe(true);
        expect(res.outputs[1]?.bytes).toBe((await stat(BUNNY_PLY)).size);
        expect(res.outputs[0]?.note).toContain('fixture');
        // The job waited in processing for a while and the polls saw it.
        expect(polls.filter((p) => p.state === 'processing').length).toBeGreaterThan(0);
        expect(polls.at(-1)?.state).toBe('finished');
        expect(uploaded.at(-1)).toBe((await stat(SCAN)).size);
        // What the processor got is what the spec said, options passed through untouched.
        expect(calls).toHaveLength(1);
        expect(calls[0]?.inputs).toEqual([expect.objectContaining({ name: 'cbct', extension: '.dcm' })]);
        expect(inputsReceived[0]?.[0]?.equals(await readFile(SCAN))).toBe(true);
        expect(calls[0]?.meshes).toEqual([
          { extension: '.stl', structures: ['mandible'] },
          { extension: '.ply', structures: ['left_nerve', 'right_nerve'] },
        ]);
        expect(calls[0]?.options).toEqual(SPEC.options);
        expect(engine.stats).toMatchObject({
          jobsCreated: 1,
          uploads: 1,
          notifies: 1,
          downloads: 2,
          tokenRequests: 1,
        });
        noPresignedAuth(engine);
      }),
    );
  });

  it('uses one token for many concurrent jobs', async () => {
    await withEngine({}, async ({ engine, client }) =>
      withTempDir(async (dir) => {
        const runs = Array.from({ length: 6 }, (_, i) =>
          runTestJob(
            client,
            { ...SPEC, meshes: [{ extension: '.stl', structures: ['mandible'] }] },
            { cbct: SCAN },
            join(dir, `s${i}`),
          ),
        );
        const results = await Promise.all(runs);
        expect(new Set(results.map((r) => r.jobId)).size).toBe(6);
        expect(client.tokenRequests).toBe(1);
        expect(engine.stats.tokenRequests).toBe(1);
        expect(engine.stats.jobsCreated).toBe(6);
        noPresignedAuth(engine);
      }),
    );
  });

  it('on a 401 drops the token, fetches a new one and repeats the call once', async () => {
    await withEngine({}, async ({ engine, client }) => {
      expect(await client.testAuth()).toMatch(/Authentication successful/);
      engine.expireTokens();
      expect(await client.testAuth()).toMatch(/Authentication successful/);
      expect(engine.stats.unauthorized).toBe(1);
      expect(client.tokenRequests).toBe(2);
    });
  });

  it('a second 401 in a row is an authentication error', async () => {
    await withEngine({ faults: { rejectAllTokens: true } }, async ({ engine, client }) => {
      const err = await expectAppError(client.testAuth(), 'auth-failed');
      expect(err.message).toContain('401');
      expect(engine.stats.unauthorized).toBe(2);
      expect(client.tokenRequests).toBe(2);
    });
  });

  it('wrong credentials or audience are authentication errors with the provider’s reason', async () => {
    await withEngine({}, async ({ engine }) => {
      const wrongSecret = clientFor(engine, { clientSecret: 'not-the-secret' });
      const e1 = await expectAppError(wrongSecret.testAuth(), 'auth-failed');
      expect(e1.message).toContain('401');
      expect(e1.message).not.toContain('not-the-secret');
      const wrongAudience = clientFor(engine, { audience: 'someone-else' });
      const e2 = await expectAppError(wrongAudience.testAuth(), 'auth-failed');
      expect(e2.message).toContain('Service not enabled');
      // Refusals are not retried: one request each.
      expect(engine.stats.tokenRequests).toBe(2);
      wrongSecret.close();
      wrongAudience.close();
    });
  });

  it('renews the token shortly before expires_in runs out, without waiting for a 401', async () => {
    await withEngine({ faults: { tokenLifetimeSeconds: 1 } }, async ({ engine, client }) => {
      await client.testAuth();
      await client.testAuth();
      expect(client.tokenRequests).toBe(1);
      await new Promise((r) => setTimeout(r, 950));
      await client.testAuth();
      expect(client.tokenRequests).toBe(2);
      expect(engine.stats.unauthorized).toBe(0);
    });
  });

  it('rides out a share of 500s on every endpoint a client may repeat', async () => {
    await withEngine(
      {
        faults: {
          status500: { share: 0.5, on: ['token', 'upload', 'notify', 'poll', 'download', 'testAuth'] },
        },
      },
      async ({ engine, client }) =>
        withTempDir(async (dir) => {
          const res = await runTestJob(client, SPEC, { cbct: SCAN }, dir);
          expect(res.outputs.every((o) => o.bytes && o.bytes > 0)).toBe(true);
          expect(engine.stats.jobsCreated).toBe(1);
          expect(engine.stats.requests).toBeGreaterThan(12);
          noPresignedAuth(engine);
        }),
    );
  });

  it('repeats a job request answered 500 or 502 before its body was sent, or reset then: none was created', async () => {
    await withEngine(
      {
        faults: {
          status500: { share: 0.25, on: ['job'] },
          status502: { share: 0.25, on: ['job'] },
          resetBeforeBody: { share: 0.25, on: ['job'] },
        },
      },
      async ({ engine, client, log }) => {
        // The shares spread evenly: about half of the requests fail, never more than 3 in a row.
        for (let i = 0; i < 4; i++) await client.createJob(SPEC);
        expect(engine.stats.jobsCreated).toBe(4);
        expect(engine.stats.jobRequests).toBeGreaterThan(6);
        const calls = retries(log);
        expect(calls.length).toBe(engine.stats.jobRequests - 4);
        expect(calls.every((c) => c.call === 'Job creation')).toBe(true);
      },
    );
  });

  it('keeps retrying a job request the service refuses with 500, then fails it as a service error', async () => {
    await withEngine({ faults: { status500: { share: 1, on: ['job'] } } }, async ({ engine, client }) => {
      const err = await expectAppError(client.createJob(SPEC), 'service');
      expect(err.message).toMatch(/Job creation: the service answered 500/);
      expect(err.retryable).toBe(true);
      // clientFor allows 5 attempts; every one was answered, so none created a job.
      expect(engine.stats.jobRequests).toBe(5);
      expect(engine.stats.jobsCreated).toBe(0);
    });
  });

  it('does not repeat a job request answered 504 after its body went out: the job may exist', async () => {
    // The engine creates the job and a "gateway" answers 504 in its place: a second request would
    // make a second job, which the service may bill.
    await withEngine({ faults: { answerLost504: { count: 1, on: ['job'] } } }, async ({ engine, client }) => {
      const err = await expectAppError(client.createJob(SPEC), 'job-may-exist');
      expect(err.message).toMatch(/the service answered 504.*The job may exist on the service/);
      expect(engine.stats.jobRequests).toBe(1);
      expect(engine.stats.jobsCreated).toBe(1);
    });
  });

  it('waits as long as Retry-After says on a 429, also for the job request', async () => {
    await withEngine(
      { faults: { status429: { count: 1, retryAfterSeconds: 1, on: ['job'] } } },
      async ({ engine, client, log }) => {
        const job = await client.createJob(SPEC);
        expect(retries(log)).toEqual([{ call: 'Job creation', delayMs: 1000 }]);
        expect(engine.stats.jobsCreated).toBe(1);
        engine.setFaults({ status429: { count: 1, retryAfterSeconds: 1, on: ['poll'] } });
        const first = job.uploads[0];
        if (!first) throw new Error('no upload');
        await client.upload(first.uploadUrl, SCAN);
        await client.notify(first.notifyUrl);
        await waitForResult(client, job.jobId, { poll: TEST_POLL });
        expect(retries(log).slice(1)).toEqual([{ call: 'Result poll', delayMs: 1000 }]);
      },
    );
  });

  it('lets Retry-After on a 202 set the next poll', async () => {
    await withEngine({ processingDelayMs: 300, faults: { pollRetryAfterSeconds: 1 } }, async ({ client }) =>
      withTempDir(async (dir) => {
        const polls: PollState[] = [];
        await runTestJob(client, SPEC, { cbct: SCAN }, dir, { onPoll: (p) => polls.push(p) });
        // Without the header the client would poll every 20-80 ms, several times in 300 ms; with it,
        // the second poll comes a second later and finds the job finished.
        expect(polls[0]).toMatchObject({ state: 'processing', retryAfterMs: 1000 });
        expect(polls).toHaveLength(2);
      }),
    );
  });

  it('gives a clear error instead of sleeping for a day on Retry-After: 86400', async () => {
    await withEngine(
      { faults: { status429: { count: 5, retryAfterSeconds: 86_400, on: ['testAuth'] } } },
      async ({ client, log }) => {
        const err = await expectAppError(client.testAuth(), 'service');
        expect(err.message).toMatch(/wait 24 h/);
        expect(err.retryable).toBe(true);
        // Not one retry was scheduled: the client did not sleep at all.
        expect(retries(log)).toEqual([]);
      },
    );
  });

  it('retries uploads, polls and downloads whose connection drops mid-body', async () => {
    await withEngine(
      { faults: { dropConnection: { count: 4, on: ['upload', 'poll', 'download'] } } },
      async ({ engine, client }) =>
        withTempDir(async (dir) => {
          const res = await runTestJob(client, SPEC, { cbct: SCAN }, dir);
          expect(await sameFile(res.outputs[0]?.path as string, SPIDER_STL)).toBe(true);
          expect(await sameFile(res.outputs[1]?.path as string, BUNNY_PLY)).toBe(true);
          expect(engine.stats.uploads).toBe(1);
          // No half-written file is left beside the outputs.
          const { readdir } = await import('node:fs/promises');
          expect((await readdir(dir)).sort()).toEqual(['left_nerve+right_nerve.ply', 'mandible.stl']);
        }),
    );
  });

  it('does not repeat a job request whose answer was cut off: clear job-may-exist error', async () => {
    await withEngine(
      { faults: { dropConnection: { count: 1, on: ['job'] } } },
      async ({ engine, client }) => {
        const err = await expectAppError(client.createJob(SPEC), 'job-may-exist');
        expect(err.message).toMatch(/outcome is unknown/);
        expect(err.action).toMatch(/not submit it again blindly.*--resubmit/);
        expect(engine.stats.jobsCreated).toBe(1);
        expect(engine.stats.jobRequests).toBe(1);
      },
    );
  });

  it('treats malformed JSON as a transient fault on polls, and as job-may-exist on job creation', async () => {
    await withEngine({ faults: { malformedJson: { count: 1, on: ['job'] } } }, async ({ engine, client }) => {
      await expectAppError(client.createJob(SPEC), 'job-may-exist');
      expect(engine.stats.jobsCreated).toBe(1);
      engine.setFaults({ malformedJson: { count: 1, on: ['poll', 'token'] } });
      await withTempDir(async (dir) => {
        const fresh = clientFor(engine);
        const res = await runTestJob(fresh, SPEC, { cbct: SCAN }, dir);
        expect(res.outputs).toHaveLength(2);
        fresh.close();
      });
    });
  });

  it('downloads slow bodies to the end, with progress along the way', async () => {
    await withEngine(
      { faults: { slowBody: { bytesPerSecond: 400_000, on: ['download'] } } },
      async ({ client }) =>
        withTempDir(async (dir) => {
          const progress: number[] = [];
          const res = await runTestJob(
            client,
            { ...SPEC, meshes: [{ extension: '.stl', structures: ['mandible'] }] },
            { cbct: SCAN },
            dir,
            {
              onDownloadProgress: (_i, got) => progress.push(got),
            },
          );
          expect(res.outputs[0]?.bytes).toBe(68_484);
          expect(new Set(progress).size).toBeGreaterThan(3);
        }),
    );
  });

  it('turns success: false into a failed job with the service’s message', async () => {
    await withEngine(
      { faults: { failJobs: { message: 'the scan holds no mandible' } } },
      async ({ client }) =>
        withTempDir(async (dir) => {
          const err = await expectAppError(runTestJob(client, SPEC, { cbct: SCAN }, dir), 'job-failed');
          expect(err.message).toContain('the scan holds no mandible');
        }),
    );
  });

  it('reports a processor failure through success: false', async () => {
    await withEngine({ fail: 'no bone found in the volume' }, async ({ client }) =>
      withTempDir(async (dir) => {
        const err = await expectAppError(runTestJob(client, SPEC, { cbct: SCAN }, dir), 'job-failed');
        expect(err.message).toContain('no bone found in the volume');
      }),
    );
  });

  it('treats an output status other than Available as a failed job', async () => {
    await withEngine({ faults: { outputStatus: 'Failed' } }, async ({ client }) =>
      withTempDir(async (dir) => {
        const err = await expectAppError(runTestJob(client, SPEC, { cbct: SCAN }, dir), 'job-failed');
        expect(err.message).toContain('status "Failed"');
        expect(err.message).toContain('mandible.stl');
      }),
    );
  });

  it('explains an expired pre-signed address', async () => {
    await withEngine({ faults: { presignedLifetimeSeconds: -5 } }, async ({ engine, client }) => {
      const job = await client.createJob(SPEC);
      const err = await expectAppError(client.upload(job.uploads[0]?.uploadUrl as string, SCAN), 'service');
      expect(err).toBeInstanceOf(PresignedRefusedError);
      expect(err.message).toMatch(/403: Request has expired/);
      expect(engine.stats.uploads).toBe(0);
      noPresignedAuth(engine);
    });
  });

  it('fetches fresh download addresses when the first ones have expired', async () => {
    await withEngine({}, async ({ engine, client }) =>
      withTempDir(async (dir) => {
        let expiredOnce = false;
        const res = await runTestJob(client, SPEC, { cbct: SCAN }, dir, {
          onPoll: (s) => {
            // The result is read with expired addresses once; the next poll hands out good ones.
            if (s.state === 'processing' && !expiredOnce) {
              expiredOnce = true;
              engine.setFaults({ presignedLifetimeSeconds: -5 });
            }
          },
          onStage: (stage) => {
            if (stage === 'downloading') engine.setFaults({});
          },
        });
        expect(res.outputs.map((o) => o.bytes)).toEqual([68_484, (await stat(BUNNY_PLY)).size]);
      }),
    );
  });

  it('falls back to POST once when the notify address answers 405 to PUT', async () => {
    await withEngine({ faults: { notifyPostOnly: true } }, async ({ engine, client }) =>
      withTempDir(async (dir) => {
        await runTestJob(client, SPEC, { cbct: SCAN }, dir);
        expect(engine.stats.notifies).toBe(1);
      }),
    );
  });

  it('creates jobs at /generic-job on version v2', async () => {
    await withEngine({ version: 'v2' }, async ({ engine, client }) =>
      withTempDir(async (dir) => {
        expect(engine.baseUrl).toMatch(/\/v2$/);
        const res = await runTestJob(client, SPEC, { cbct: SCAN }, dir);
        expect(res.outputs).toHaveLength(2);
      }),
    );
  });

  it('supports client-hosted inputs (downloadUrl), outputs (uploadUrl) and the finish webhook', async () => {
    const { createServer } = await import('node:http');
    const received: Buffer[] = [];
    let webhook: (v: unknown) => void = () => {};
    const hooked = new Promise<unknown>((r) => (webhook = r));
    const scan = await readFile(SCAN);
    const storage = createServer((req, res) => {
      if (req.method === 'GET' && req.url === '/scan.dcm') {
        res.writeHead(200, { 'Content-Length': scan.length }).end(scan);
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/hook') webhook(JSON.parse(Buffer.concat(chunks).toString()));
        else received.push(Buffer.concat(chunks));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => storage.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(storage.address() as { port: number }).port}`;
    try {
      await withEngine({}, async ({ engine, client, inputsReceived }) =>
        withTempDir(async (dir) => {
          const res = await runTestJob(
            client,
            {
              inputs: { cbct: { extension: '.dcm', downloadUrl: `${origin}/scan.dcm` } },
              meshes: [
                {
                  extension: '.stl',
                  structures: ['mandible'],
                  uploadUrl: `${origin}/out/mandible.stl?sig=abc`,
                },
                { extension: '.stl', structures: ['skull'] },
              ],
              finishWebhook: `${origin}/hook`,
            },
            {},
            dir,
          );
          expect(engine.stats.uploads).toBe(0);
          expect(inputsReceived[0]?.[0]?.equals(scan)).toBe(true);
          expect(res.outputs[0]).toMatchObject({ deliveredToUploadUrl: true, bytes: 68_484 });
          expect(received[0]?.equals(await readFile(SPIDER_STL))).toBe(true);
          // The finish webhook carries the poll result.
          expect(await hooked).toMatchObject({ success: true, jobId: res.jobId });
          expect(res.outputs[1]?.path).toBe(join(dir, 'skull.stl'));
        }),
      );
    } finally {
      storage.close();
    }
  });

  it('stops waiting at once when canceled', async () => {
    await withEngine({ processingDelayMs: 20_000 }, async ({ client }) => {
      const job = await client.createJob(SPEC);
      await client.upload(job.uploads[0]?.uploadUrl as string, SCAN);
      await client.notify(job.uploads[0]?.notifyUrl as string);
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 100);
      // Processing takes 20 s: only the abort can end the wait with 'canceled' (the test times out first).
      await expectAppError(
        waitForResult(client, job.jobId, { signal: abort.signal, poll: TEST_POLL }),
        'canceled',
      );
    });
  });

  it('keeps tokens, secrets and signatures out of its logs', async () => {
    await withTempDir(async (dir) => {
      const logFile = join(dir, 'client.log');
      const t = await startTestEngine({ faults: { dropConnection: { count: 1, on: ['download'] } } });
      const logger = createLogger({ file: logFile, level: 'debug' });
      const client = clientFor(t.engine, { logger });
      try {
        const res = await runTestJob(client, SPEC, { cbct: SCAN }, join(dir, 'out'));
        await logger.flush();
        const log = readLogs(logFile);
        expect(log).toContain(res.jobId);
        expect(log).toContain('retrying');
        expect(log).not.toContain(t.engine.clientSecret);
        expect(log).not.toMatch(/X-Signature|X-Expires/);
        expect(log).not.toMatch(/Bearer (?!\[redacted\])/);
      } finally {
        client.close();
        await t.engine.close();
      }
    });
  });
});

describe('downloads', () => {
  it('survives dropped and slow bodies, and takes the size as a hint', async () => {
    const t = await startTestEngine({
      faults: {
        dropConnection: { count: 2, on: ['download'] },
        slowBody: { bytesPerSecond: 2_000_000, on: ['download'] },
      },
    });
    const client = clientFor(t.engine);
    try {
      await withTempDir(async (dir) => {
        const progress: number[] = [];
        const res = await runTestJob(client, SPEC, { cbct: SCAN }, dir, {
          onDownloadProgress: (i, got) => i === 1 && progress.push(got),
        });
        expect(await sameFile(res.outputs[0]?.path as string, SPIDER_STL)).toBe(true);
        expect(await sameFile(res.outputs[1]?.path as string, BUNNY_PLY)).toBe(true);
        expect(progress.length).toBeGreaterThan(3);
        expect(progress.at(-1)).toBe((await stat(BUNNY_PLY)).size);
        const { readdir } = await import('node:fs/promises');
        expect((await readdir(dir)).sort()).toEqual(['left_nerve+right_nerve.ply', 'mandible.stl']);
        // A size in another unit than bytes (the interface does not say which) is no reason to refuse.
        const poll = await client.pollOnce(res.jobId);
        if (poll.state !== 'finished') throw new Error('job not finished');
        const url = poll.result.outputFiles?.meshes?.[0]?.url as string;
        const kB = await client.download(url, join(dir, 'x', 'm.stl'), { expectedSize: 67 });
        expect(kB.bytes).toBe(68484);
        t.engine.setFaults({ presignedLifetimeSeconds: -5 });
        const stale = await client.pollOnce(res.jobId);
        if (stale.state !== 'finished') throw new Error('job not finished');
        const expired = client.download(
          stale.result.outputFiles?.meshes?.[0]?.url as string,
          join(dir, 'x', 'm.stl'),
        );
        expect(await expectAppError(expired, 'service')).toBeInstanceOf(PresignedRefusedError);
      });
    } finally {
      client.close();
      await t.engine.close();
    }
  });
});
