import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runResume } from '../cli/commands/resume.js';
import { runRetry } from '../cli/commands/retry.js';
import { runStatus } from '../cli/commands/status.js';
import { runSubmit } from '../cli/commands/submit.js';
import type { RunningEngine } from '../engine/local-engine.js';
import { silentLogger } from '../logging/logger.js';
import { ScanService } from '../scans/scan-service.js';
import { startTestEngine } from '../service/test-engine.test-support.js';
import { parseConcurrency, type CliQueueDeps } from './cli-queue.js';
import { DICOM, FAST, testSecrets } from './test-support.js';

/** The queue commands run in this process against the local engine (fixture processor, tests only). */
let engine: RunningEngine;
let dir: string;
let scans: ScanService;
let deps: CliQueueDeps;
let flags: { baseUrl: string; authUrl: string; audience: string; clientId: string };

/** What a command printed: `out` is stdout, `err` its messages and progress (stderr). */
function capture() {
  const printed = { out: '', err: '' };
  const err = (t: string): void => void (printed.err += t);
  return { printed, io: { out: (t: string) => void (printed.out += t), err, progress: { write: err } } };
}

beforeAll(async () => {
  ({ engine } = await startTestEngine({ processingDelayMs: 20, stepMs: 0 }));
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-cli-queue-'));
  scans = new ScanService({ tempDir: dir });
  flags = {
    baseUrl: engine.baseUrl,
    authUrl: engine.authUrl,
    audience: engine.audience,
    clientId: engine.clientId,
  };
  deps = {
    env: { SCAN2MESH_CLIENT_SECRET: engine.clientSecret },
    dataDir: join(dir, 'data'),
    logger: silentLogger,
    scans,
    startEngine: () => Promise.reject(new Error('these tests name their connection')),
    secrets: testSecrets,
    tuning: FAST,
  };
});

afterAll(async () => {
  await scans.dispose();
  await engine.close();
  await rm(dir, { recursive: true, force: true });
});

describe('submit, status, retry and resume on one queue', () => {
  it('lists nothing before anything was submitted', () => {
    let text = '';
    expect(runStatus({}, { dataDir: deps.dataDir, out: (t) => (text += t) })).toBe(0);
    expect(text).toBe('No jobs yet.\n');
  });

  it('reports a failed job (exit 1), shows it in status, retries it by a short id (exit 0)', async () => {
    const scan = join(DICOM, 'multiframe');
    const out = join(dir, 'out');
    engine.setFaults({ failJobs: { message: 'no bone found' } });
    const c = capture();
    const code = await runSubmit(
      [scan],
      { mesh: ['mandible'], format: 'stl', out, json: true, concurrency: 3, ...flags },
      deps,
      c.io,
    );
    expect(code).toBe(1);
    const doc = JSON.parse(c.printed.out) as {
      connection: string;
      jobs: { scan: string; state: string; jobId: string; error: { code: string } }[];
    };
    expect(doc.connection).toBe(engine.baseUrl);
    expect(doc.jobs).toHaveLength(1);
    expect(doc.jobs[0]).toMatchObject({ scan, state: 'failed', error: { code: 'job-failed' } });
    expect(c.printed.err).toMatch(/: failed: The service reports job .* as failed: no bone found/);

    let status = '';
    runStatus({ json: true }, { dataDir: deps.dataDir, out: (t) => (status += t) });
    const listed = (JSON.parse(status) as { jobs: { id: string; state: string; remoteJobId: string }[] })
      .jobs;
    expect(listed.map((j) => j.state)).toEqual(['failed']);
    expect(listed[0]!.remoteJobId).toBe(doc.jobs[0]!.jobId);

    engine.setFaults({});
    const r = capture();
    expect(await runRetry(listed[0]!.id.slice(0, 8), { ...flags, json: true }, deps, r.io)).toBe(0);
    const retried = JSON.parse(r.printed.out) as {
      jobs: { state: string; outputs: { path: string; bytes: number }[] }[];
    };
    expect(retried.jobs[0]!.state).toBe('done');
    const mesh = retried.jobs[0]!.outputs[0]!;
    expect(mesh.path).toBe(join(out, 'multiframe', 'mandible.stl'));
    expect((await stat(mesh.path)).size).toBe(mesh.bytes);

    let text = '';
    runStatus({}, { dataDir: deps.dataDir, out: (t) => (text += t) });
    expect(text).toMatch(/^ID\s+STATE\s+SCAN/);
    expect(text).toContain(join(out, 'multiframe', 'mandible.stl'));
  });

  it('has nothing to resume when every job ended', async () => {
    const c = capture();
    expect(await runResume({ ...flags }, deps, c.io)).toBe(0);
    expect(c.printed.out).toBe('Nothing to resume.\n');
  });

  it('refuses bad connection flags and unknown jobs with what to do', async () => {
    const c = capture();
    await expect(runResume({ ...flags, profile: 'x' }, deps, c.io)).rejects.toThrow(
      /either --profile or --base-url/,
    );
    await expect(runResume({ baseUrl: flags.baseUrl }, deps, c.io)).rejects.toThrow(
      /also needs --auth-url, --audience, --client-id/,
    );
    await expect(runResume({ ...flags }, { ...deps, env: {} }, c.io)).rejects.toThrow(
      /SCAN2MESH_CLIENT_SECRET/,
    );
    await expect(runRetry('nope', { ...flags }, deps, c.io)).rejects.toThrow(/There is no job "nope"/);
    expect(() => parseConcurrency('0')).toThrow(/--concurrency must be 1..16/);
  });
});
