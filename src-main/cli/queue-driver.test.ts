import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runResume } from './commands/resume.js';
import { runRetry } from './commands/retry.js';
import { runStatus } from './commands/status.js';
import { runSubmit } from './commands/submit.js';
import { CliExit } from './exit-codes.js';
import type { RunningEngine } from '../engine/local-engine.js';
import { silentLogger } from '../logging/logger.js';
import { ScanService } from '../scans/scan-service.js';
import { startTestEngine } from '../service/test-engine.test-support.js';
import { parseConcurrency } from './option-parsers.js';
import type { CliQueueDeps } from './queue-driver.js';
import { DICOM, FAST, testSecrets } from '../jobs/jobs.test-support.js';

/** The queue commands run in this process against the local engine (fixture processor, tests only). */
let engine: RunningEngine;
let dir: string;
let scans: ScanService;
let deps: CliQueueDeps;
let flags: { baseUrl: string; authUrl: string; audience: string; clientId: string };
/** A real CT of a head with its teeth: the command line takes only scans a model can be made of. */
const SCAN = join(DICOM, 'ct-human-cranium-teeth');

/** What a command printed: `out` is stdout, `err` its messages and progress (stderr). */
function capture() {
  const printed = { out: '', err: '' };
  const err = (t: string): void => void (printed.err += t);
  return { printed, io: { out: (t: string) => void (printed.out += t), err, progress: { write: err } } };
}

beforeAll(async () => {
  ({ engine } = await startTestEngine({ processingDelayMs: 20, stepMs: 0 }));
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-queue-driver-'));
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
    const scan = SCAN;
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
    expect(mesh.path).toBe(join(out, 'ct-human-cranium-teeth', 'mandible.stl'));
    expect((await stat(mesh.path)).size).toBe(mesh.bytes);

    let text = '';
    runStatus({}, { dataDir: deps.dataDir, out: (t) => (text += t) });
    expect(text).toMatch(/^ID\s+STATE\s+SCAN/);
    expect(text).toContain(join(out, 'ct-human-cranium-teeth', 'mandible.stl'));
  });

  it('fails the job for a wrong client secret and exits 3 with what to check', async () => {
    const c = capture();
    const code = await runSubmit(
      [SCAN],
      { mesh: ['mandible'], format: 'stl', out: join(dir, 'out-auth'), json: true, ...flags },
      { ...deps, env: { SCAN2MESH_CLIENT_SECRET: 'not-the-secret' } },
      c.io,
    );
    expect(code, c.printed.err).toBe(3);
    const doc = JSON.parse(c.printed.out) as { jobs: { state: string; error: { code: string } }[] };
    expect(doc.jobs).toMatchObject([{ state: 'failed', error: { code: 'auth-failed' } }]);
    expect(c.printed.err).toMatch(/Sign-in refused \(401/);
  });

  it('exits 3 from the real command line for a wrong secret, saying what to check', async () => {
    // The command run as a user runs it (its own process, its own data folder), against this engine.
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(process.cwd(), 'src-main', 'cli', 'cli.ts'),
        'submit',
        SCAN,
        '--mesh',
        'mandible',
        '--out',
        join(dir, 'out-auth-cli'),
        ...Object.entries(flags).flatMap(([k, v]) => [
          `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
          v,
        ]),
      ],
      {
        env: {
          ...process.env,
          SCAN2MESH_DATA_DIR: join(dir, 'data-auth-cli'),
          SCAN2MESH_CLIENT_SECRET: 'not-the-secret',
          SCAN2MESH_LOG_LEVEL: 'error',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code, stderr).toBe(3);
    expect(stderr).toMatch(/Sign-in refused \(401/);
    expect(stdout + stderr).toMatch(/Check the client id, client secret and audience/);
  });

  it('ends a job whose creation answer was lost as may-exist (exit 5); retry needs --resubmit', async () => {
    const before = engine.stats.jobsCreated;
    // The engine creates the job, then the connection dies halfway through its answer.
    engine.setFaults({ dropConnection: { count: 1, on: ['job'] } });
    const c = capture();
    const code = await runSubmit(
      [SCAN],
      { mesh: ['mandible'], format: 'stl', out: join(dir, 'out-may-exist'), json: true, ...flags },
      deps,
      c.io,
    );
    engine.setFaults({});
    expect(code).toBe(5);
    const doc = JSON.parse(c.printed.out) as { jobs: { state: string; error: { code: string } }[] };
    expect(doc.jobs).toMatchObject([{ state: 'failed', error: { code: 'job-may-exist' } }]);
    expect(engine.stats.jobsCreated).toBe(before + 1);

    let status = '';
    runStatus({ json: true }, { dataDir: deps.dataDir, out: (t) => (status += t) });
    const jobs = (JSON.parse(status) as { jobs: { id: string; error?: { code: string } }[] }).jobs;
    const id = jobs.find((j) => j.error?.code === 'job-may-exist')!.id;
    const r = capture();
    const refused = await runRetry(id.slice(0, 8), { ...flags }, deps, r.io).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CliExit);
    expect((refused as CliExit).code).toBe(5);
    expect((refused as CliExit).message).toMatch(
      /may already exist on the service: its creation was sent and not confirmed .*--resubmit/,
    );
    expect((refused as CliExit).message).not.toContain('\n');
    expect(engine.stats.jobsCreated).toBe(before + 1);

    const again = capture();
    expect(await runRetry(id.slice(0, 8), { ...flags, resubmit: true }, deps, again.io)).toBe(0);
    // The user chose it: a second job on the service, done.
    expect(engine.stats.jobsCreated).toBe(before + 2);
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
