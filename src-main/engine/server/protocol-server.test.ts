import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalEngine, type LocalEngineOptions, type RunningEngine } from '../local-engine.js';
import type { Processor, ProcessorJob } from '../processor.js';
import { processingState } from '../../service/poll-state.js';
import { createFixtureProcessor, FIXTURES } from './fixture-processor.test-support.js';

/** The engine's protocol server spoken to with plain HTTP requests, without the app's client. */
const SCAN = join(FIXTURES, 'dicom', 'multiframe', 'enhanced-ct-nema-ct0012-rle.dcm');

const engines: RunningEngine[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function start(
  opts: Partial<LocalEngineOptions> = {},
  calls: ProcessorJob[] = [],
  received: Buffer[][] = [],
): Promise<RunningEngine> {
  const engine = await startLocalEngine({ processor: createFixtureProcessor({ calls, received }), ...opts });
  engines.push(engine);
  return engine;
}

async function token(engine: RunningEngine, overrides: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${engine.authUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      audience: engine.audience,
      client_id: engine.clientId,
      client_secret: engine.clientSecret,
      ...overrides,
    }),
  });
}

async function bearer(engine: RunningEngine): Promise<string> {
  const res = await token(engine);
  const body = (await res.json()) as { access_token: string };
  return `Bearer ${body.access_token}`;
}

interface Created {
  jobId: string;
  presignedUploadUrl: Record<string, { presignedUploadUrl: string; notifyFinishUploadUrl: string }>;
}

async function createJob(
  engine: RunningEngine,
  auth: string,
  body: unknown,
  path = '/job',
): Promise<Response> {
  return fetch(`${engine.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: auth },
    body: JSON.stringify(body),
  });
}

const BODY = {
  inputFiles: { cbct: { extension: '.dcm' } },
  outputFiles: { meshes: [{ extension: '.stl', structures: ['mandible'] }] },
};

async function poll(engine: RunningEngine, auth: string, jobId: string): Promise<Response> {
  return fetch(`${engine.baseUrl}/pollJobResults?jobId=${jobId}`, { headers: { Authorization: auth } });
}

async function pollUntilDone(
  engine: RunningEngine,
  auth: string,
  jobId: string,
): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const res = await poll(engine, auth, jobId);
    if (res.status === 200) return (await res.json()) as Record<string, unknown>;
    expect(res.status).toBe(202);
    await res.text();
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('job did not finish');
}

describe('local engine protocol server', () => {
  it('issues tokens only for the right client id, secret and audience, as JSON client credentials', async () => {
    const engine = await start({ clientSecret: 'the-secret' });
    const ok = await token(engine);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      token_type: 'Bearer',
      expires_in: 86400,
      access_token: expect.any(String),
    });
    expect((await token(engine, { client_secret: 'nope' })).status).toBe(401);
    expect((await token(engine, { client_id: 'nope' })).status).toBe(401);
    const aud = await token(engine, { audience: 'other' });
    expect(aud.status).toBe(403);
    expect(await aud.json()).toMatchObject({ error: 'access_denied' });
    expect((await token(engine, { grant_type: 'password' })).status).toBe(400);
    const form = await fetch(`${engine.authUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${engine.clientId}&client_secret=the-secret`,
    });
    expect(form.status).toBe(415);
    expect(engine.stats.tokenRequests).toBe(6);
    expect(engine.stats.tokensIssued).toBe(1);
  });

  it('answers 401 to a missing, malformed, unknown or expired token', async () => {
    const engine = await start();
    const url = `${engine.baseUrl}/testAuth`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { Authorization: 'Bearer' } })).status).toBe(401);
    expect((await fetch(url, { headers: { Authorization: 'Basic dXNlcjpwYXNz' } })).status).toBe(401);
    expect((await fetch(url, { headers: { Authorization: `Bearer ${'x'.repeat(43)}` } })).status).toBe(401);
    const auth = await bearer(engine);
    const ok = await fetch(url, { headers: { Authorization: auth } });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as unknown[];
    expect(body).toHaveLength(1);
    expect(typeof body[0]).toBe('string');
    engine.expireTokens();
    const expired = await fetch(url, { headers: { Authorization: auth } });
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(engine.stats.unauthorized).toBe(5);
  });

  it('starts processing only after every input is uploaded and notified (§3)', async () => {
    const calls: ProcessorJob[] = [];
    const received: Buffer[][] = [];
    const engine = await start({}, calls, received);
    const auth = await bearer(engine);
    const res = await createJob(engine, auth, {
      inputFiles: { cbct: { extension: '.dcm' }, ios_upper: { extension: '.stl' } },
      outputFiles: { meshes: [{ extension: '.stl', structures: ['mandible'] }] },
    });
    expect(res.status).toBe(200);
    const job = (await res.json()) as Created;
    expect(Object.keys(job.presignedUploadUrl).sort()).toEqual(['cbct', 'ios_upper']);
    const { cbct, ios_upper } = job.presignedUploadUrl as Record<
      string,
      Created['presignedUploadUrl'][string]
    >;
    if (!cbct || !ios_upper) throw new Error('missing upload addresses');

    const put = (u: string, body: Buffer) =>
      fetch(u, { method: 'PUT', headers: { 'Content-Type': 'application/octet-stream' }, body });
    const notify = (u: string) => fetch(u, { method: 'PUT', headers: { Authorization: auth } });

    expect((await put(cbct.presignedUploadUrl, await readFile(SCAN))).status).toBe(200);
    expect((await notify(cbct.notifyFinishUploadUrl)).status).toBe(200);
    // Notified before it was uploaded: refused, and nothing starts.
    const early = await notify(ios_upper.notifyFinishUploadUrl);
    expect(early.status).toBe(409);
    expect(((await early.json()) as { message: string }).message).toMatch(/not been uploaded/);
    const waiting = await poll(engine, auth, job.jobId);
    expect(waiting.status).toBe(202);
    expect(await waiting.text()).toBe('PROCESSING');
    // Uploaded but not yet notified: still nothing.
    expect(
      (await put(ios_upper.presignedUploadUrl, await readFile(join(FIXTURES, 'mesh', 'spider-binary.stl'))))
        .status,
    ).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toHaveLength(0);
    expect((await notify(ios_upper.notifyFinishUploadUrl)).status).toBe(200);
    const result = await pollUntilDone(engine, auth, job.jobId);
    expect(calls).toHaveLength(1);
    expect(result).toMatchObject({
      success: true,
      outputFiles: {
        meshes: [{ status: 'Available', size: 68484, extension: '.stl', structures: ['mandible'] }],
      },
    });
    expect(received[0]?.[0]?.equals(await readFile(SCAN))).toBe(true);
    // The finished job keeps its mesh, not the copies of its inputs (patient data).
    await expect(stat(calls[0]?.inputs[0]?.path as string)).rejects.toThrow(/ENOENT/);
  });

  it('signs pre-signed addresses with an expiry and refuses tampering, expiry and Authorization headers', async () => {
    const engine = await start();
    const auth = await bearer(engine);
    const job = (await (await createJob(engine, auth, BODY)).json()) as Created;
    const upload = job.presignedUploadUrl.cbct?.presignedUploadUrl as string;
    const u = new URL(upload);
    expect(u.searchParams.get('X-Expires')).toMatch(/^\d+$/);
    expect(u.searchParams.get('X-Signature')).toMatch(/^[0-9a-f]{64}$/);

    const body = await readFile(SCAN);
    const tampered = new URL(upload);
    tampered.searchParams.set('X-Expires', String(Number(u.searchParams.get('X-Expires')) + 3600));
    expect((await fetch(tampered, { method: 'PUT', body })).status).toBe(403);
    const unsigned = new URL(upload);
    unsigned.search = '';
    expect((await fetch(unsigned, { method: 'PUT', body })).status).toBe(403);
    // The client's token on a pre-signed address: storage refuses it, and the server counts it.
    const withAuth = await fetch(upload, { method: 'PUT', body, headers: { Authorization: auth } });
    expect(withAuth.status).toBe(400);
    expect(engine.stats.authHeaderOnPresigned).toBe(1);
    expect(engine.stats.uploads).toBe(0);

    engine.setFaults({ presignedLifetimeSeconds: -1 });
    const job2 = (await (await createJob(engine, auth, BODY)).json()) as Created;
    const expired = await fetch(job2.presignedUploadUrl.cbct?.presignedUploadUrl as string, {
      method: 'PUT',
      body,
    });
    expect(expired.status).toBe(403);
    expect(await expired.json()).toEqual({ message: 'Request has expired' });
  });

  it('requires Content-Length on uploads, as storage does', async () => {
    const engine = await start();
    const auth = await bearer(engine);
    const job = (await (await createJob(engine, auth, BODY)).json()) as Created;
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new Uint8Array([1, 2, 3]));
        c.close();
      },
    });
    const res = await fetch(
      job.presignedUploadUrl.cbct?.presignedUploadUrl as string,
      {
        method: 'PUT',
        body: stream,
        duplex: 'half',
      } as RequestInit,
    );
    expect(res.status).toBe(411);
  });

  it('creates jobs at /generic-job on v2 and older, at /job later', async () => {
    const v2 = await start({ version: 'v2' });
    const auth2 = await bearer(v2);
    expect((await createJob(v2, auth2, BODY, '/job')).status).toBe(404);
    expect((await createJob(v2, auth2, BODY, '/generic-job')).status).toBe(200);
    const v24 = await start();
    const auth24 = await bearer(v24);
    expect((await createJob(v24, auth24, BODY, '/generic-job')).status).toBe(404);
    expect((await createJob(v24, auth24, BODY, '/job')).status).toBe(200);
  });

  it('refuses invalid job bodies with a message', async () => {
    const engine = await start();
    const auth = await bearer(engine);
    const missing = await createJob(engine, auth, { inputFiles: { cbct: { extension: '.dcm' } } });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toContain('outputFiles');
    const noDot = await createJob(engine, auth, { ...BODY, inputFiles: { cbct: { extension: 'dcm' } } });
    expect(noDot.status).toBe(400);
    const unsupported = await createJob(engine, auth, {
      ...BODY,
      outputFiles: { meshes: [{ extension: '.fbx', structures: ['mandible'] }] },
    });
    expect(unsupported.status).toBe(400);
    expect(((await unsupported.json()) as { message: string }).message).toContain('.fbx');
    const notJson = await fetch(`${engine.baseUrl}/job`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: auth },
      body: '{"inputFiles":',
    });
    expect(notJson.status).toBe(400);
    expect(engine.stats.jobsCreated).toBe(0);
    expect((await poll(engine, auth, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect(
      (await fetch(`${engine.baseUrl}/pollJobResults`, { headers: { Authorization: auth } })).status,
    ).toBe(400);
  });

  it('answers polls at once with 202 PROCESSING and the progress while a job runs', async () => {
    // Long enough that a poll answered only after processing ended would come back 200, not 202.
    const engine = await start({ processingDelayMs: 3000 });
    const auth = await bearer(engine);
    const job = (await (await createJob(engine, auth, BODY)).json()) as Created;
    const cbct = job.presignedUploadUrl.cbct;
    await fetch(cbct?.presignedUploadUrl as string, { method: 'PUT', body: await readFile(SCAN) });
    await fetch(cbct?.notifyFinishUploadUrl as string, { method: 'POST', headers: { Authorization: auth } });
    // Polled until the job only waits out its delay (progress near 1); a fixed pause may end too soon.
    for (;;) {
      const res = await poll(engine, auth, job.jobId);
      // A poll held until processing ended would come back 200: the 202 shows it was answered at once.
      expect(res.status).toBe(202);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toBe('PROCESSING');
      if (Number(res.headers.get('x-progress')) >= 0.95) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  });

  it('holds a poll of a running job until the job ends when asked to (the long poll of the app engine)', async () => {
    // The hold is far longer than the test may take: only the job's stages and end can answer polls.
    const engine = await start({ processingDelayMs: 300, pollHoldMs: 600_000 });
    const auth = await bearer(engine);
    const job = (await (await createJob(engine, auth, BODY)).json()) as Created;
    const cbct = job.presignedUploadUrl.cbct;
    await fetch(cbct?.presignedUploadUrl as string, { method: 'PUT', body: await readFile(SCAN) });
    await fetch(cbct?.notifyFinishUploadUrl as string, { method: 'POST', headers: { Authorization: auth } });
    // Each stage the job enters answers a held poll too (two here), then the end does.
    let res = await poll(engine, auth, job.jobId);
    while (res.status === 202 && engine.stats.polls < 4) {
      await res.text();
      res = await poll(engine, auth, job.jobId);
    }
    expect(res.status).toBe(200);
    expect(((await res.json()) as { success: boolean }).success).toBe(true);
  });

  it("wakes a held poll with each stage of a running job, in words the app's client shows", async () => {
    // A mesh naming many structures makes a long stage; its end holds the count that moves.
    const label = Array.from({ length: 8 }, (_, i) => `structure_number_${i + 1}`).join(' + ');
    const stages = [1, 2].map(
      (k) => `simplifying the surface of ${label}: ${k} of 4 parts done (${k} s so far)`,
    );
    let next: () => void = () => {};
    const processor: Processor = {
      validate: () => null,
      async process(_job, onProgress, signal) {
        const closed = new Promise<never>((_, reject) =>
          signal.addEventListener('abort', () => reject(new Error('closed'))),
        );
        for (const [i, stage] of stages.entries()) {
          // Each stage is told once the test holds a poll for it.
          await Promise.race([new Promise<void>((resolve) => (next = resolve)), closed]);
          onProgress({ fraction: 0.5 + i / 10, stage });
        }
        return closed;
      },
    };
    // The hold is far longer than the test may take: only a new stage can answer the polls.
    const engine = await start({ processor, pollHoldMs: 600_000 });
    const auth = await bearer(engine);
    const job = (await (await createJob(engine, auth, BODY)).json()) as Created;
    const cbct = job.presignedUploadUrl.cbct;
    await fetch(cbct?.presignedUploadUrl as string, { method: 'PUT', body: await readFile(SCAN) });
    await fetch(cbct?.notifyFinishUploadUrl as string, { method: 'POST', headers: { Authorization: auth } });
    const seen: { progress?: number; stage?: string }[] = [];
    for (const _ of stages) {
      const polls = engine.stats.polls;
      const held = poll(engine, auth, job.jobId);
      // Held once counted (the count and the hold are one step of the server).
      while (engine.stats.polls === polls) await new Promise((r) => setTimeout(r, 10));
      next();
      const res = await held;
      expect(res.status).toBe(202);
      await res.text();
      const state = processingState(Object.fromEntries(res.headers));
      if (state.state === 'processing') seen.push(state);
    }
    expect(seen.map((s) => s.progress)).toEqual([0.5, 0.6]);
    for (const [i, s] of seen.entries()) {
      expect(s.stage?.length).toBeLessThanOrEqual(120);
      expect(s.stage).toMatch(/^simplifying the surface of structure_number_1 \+ .*…/);
      expect(s.stage?.endsWith(`${i + 1} of 4 parts done (${i + 1} s so far)`)).toBe(true);
    }
  });

  it('answers a held poll with 202 when the hold runs out before the job ends', async () => {
    const engine = await start({ processingDelayMs: 600_000, pollHoldMs: 50 });
    const auth = await bearer(engine);
    const job = (await (await createJob(engine, auth, BODY)).json()) as Created;
    const cbct = job.presignedUploadUrl.cbct;
    await fetch(cbct?.presignedUploadUrl as string, { method: 'PUT', body: await readFile(SCAN) });
    await fetch(cbct?.notifyFinishUploadUrl as string, { method: 'POST', headers: { Authorization: auth } });
    const res = await poll(engine, auth, job.jobId);
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('PROCESSING');
  });

  it('keeps jobs across a restart on the same data folder', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'scan2mesh-engine-test-'));
    dirs.push(dataDir);
    const first = await start({ dataDir, clientSecret: 's3cret' });
    const auth = await bearer(first);
    const job = (await (await createJob(first, auth, BODY)).json()) as Created;
    await fetch(job.presignedUploadUrl.cbct?.presignedUploadUrl as string, {
      method: 'PUT',
      body: await readFile(SCAN),
    });
    await fetch(job.presignedUploadUrl.cbct?.notifyFinishUploadUrl as string, {
      method: 'PUT',
      headers: { Authorization: auth },
    });
    await pollUntilDone(first, auth, job.jobId);
    await first.close();

    const second = await start({ dataDir, clientSecret: 's3cret' });
    expect(second.port).not.toBe(first.port);
    // Tokens do not survive a restart; the job does.
    expect((await poll(second, auth, job.jobId)).status).toBe(401);
    const auth2 = await bearer(second);
    const result = (await pollUntilDone(second, auth2, job.jobId)) as {
      outputFiles: { meshes: { url: string; size: number }[] };
    };
    const url = result.outputFiles.meshes[0]?.url as string;
    expect(url.startsWith(`http://127.0.0.1:${second.port}/storage/`)).toBe(true);
    const file = await fetch(url);
    expect(file.status).toBe(200);
    expect(
      Buffer.from(await file.arrayBuffer()).equals(
        await readFile(join(FIXTURES, 'mesh', 'spider-binary.stl')),
      ),
    ).toBe(true);
  });

  it('answers 405 with Allow for a wrong method and 404 for unknown addresses', async () => {
    const engine = await start();
    const res = await fetch(`${engine.baseUrl}/job`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect((await fetch(`${engine.baseUrl}/nothing`)).status).toBe(404);
    expect((await fetch(`${engine.baseUrl.replace('24.06', '23.01')}/testAuth`)).status).toBe(404);
  });
});
