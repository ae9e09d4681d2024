import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobState } from '../../src-shared/jobs.js';
import type { RunningEngine } from '../engine/local-engine.js';
import { startTestEngine } from '../service/test-engine.test-support.js';
import { openJobDatabase, type Db } from './job-db.js';
import { JobStore, type JobRecord } from './job-store.js';
import { DICOM, FIXTURES } from './jobs.test-support.js';
import { JOB_MANIFEST } from './output-folder.js';

/** The command line's flags for a connection given in full (its secret goes in the environment). */
function connectionArgs(e: RunningEngine): string[] {
  return [
    '--base-url',
    e.baseUrl,
    '--auth-url',
    e.authUrl,
    '--audience',
    e.audience,
    '--client-id',
    e.clientId,
  ];
}

/**
 * The crash test: `scan2mesh submit` of four real fixture scans to a local engine that runs in this
 * (test) process, so that killing the command line does not kill the engine. The command line is
 * killed with SIGKILL three times at random moments (while it packs, while it uploads, after the
 * uploads), each time restarted as `scan2mesh resume`, and the last resume must finish every job.
 *
 * The engine runs the FIXTURE processor (tests only): it answers each mesh with a real third-party
 * mesh after a processing delay, so that the run spends its time in the client, not in segmentation.
 */
const CLI = join(process.cwd(), 'src-main', 'cli', 'cli.ts');
const SECRET = 'crash-test-secret-0123456789';

/** Seeded, so that a failing run can be repeated: SCAN2MESH_CRASH_SEED=<seed from the log>. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('crash test: SIGKILL at random moments, then resume', () => {
  let engine: RunningEngine;
  let dir: string;
  let db: Db | undefined;

  beforeAll(async () => {
    ({ engine } = await startTestEngine({
      processingDelayMs: 700,
      stepMs: 5,
      concurrency: 3,
      clientSecret: SECRET,
    }));
    dir = await mkdtemp(join(tmpdir(), 'scan2mesh-crash-'));
  });

  afterAll(async () => {
    db?.close();
    await engine?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('finishes every job after three kills; one engine job per scan; every mesh complete', async () => {
    const seed = Number(process.env.SCAN2MESH_CRASH_SEED) || Date.now() % 1_000_000;
    const rnd = random(seed);
    const log: string[] = [`seed ${seed}`];
    // Printed now as well: a run that hangs until its timeout never reaches the log's printing.
    console.log(`crash test seed ${seed} (SCAN2MESH_CRASH_SEED=${seed} repeats this run)`);
    const dataDir = join(dir, 'data');
    const out = join(dir, 'out');
    // Four scans the command line takes (it refuses scans no model can be made of): the 140-slice
    // phantom CT (a 40 MB upload) and the 108-slice human head CT, that one also in two folders of its
    // own (copies in other folders are other scans).
    const cranium = join(DICOM, 'ct-human-cranium-teeth');
    const scans = [join(DICOM, 'ct-head-phantom-1mm'), cranium];
    for (const n of [1, 2]) {
      const copy = join(dir, 'scans', `cranium-copy-${n}`);
      await cp(cranium, copy, { recursive: true });
      scans.push(copy);
    }
    const connection = connectionArgs(engine);
    const run = (
      args: string[],
    ): { child: ChildProcess; exit: Promise<number | null>; stdout: () => string } => {
      const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args, ...connection], {
        env: { ...process.env, SCAN2MESH_DATA_DIR: dataDir, SCAN2MESH_CLIENT_SECRET: SECRET },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const exit = new Promise<number | null>((resolve) =>
        child.on('close', (code) => {
          if (code !== null && code !== 0) log.push(`exit ${code}: ${stderr.slice(-2000)}`);
          resolve(code);
        }),
      );
      return { child, exit, stdout: () => stdout };
    };
    const jobsNow = (): JobRecord[] => new JobStore((db ??= openJobDatabase(dataDir))).list();
    const states = (): JobState[] => jobsNow().map((j) => j.state);
    /** Jobs in `among` that the running command line holds (so the kill hits it at work). */
    const held = (proc: ReturnType<typeof run>, among: JobState[]): boolean =>
      jobsNow().some((j) => j.ownerPid === proc.child.pid && among.includes(j.state));
    /** Kills the command line once `when` holds, after a random extra moment; false if it ended first. */
    const killWhen = async (
      proc: ReturnType<typeof run>,
      label: string,
      when: () => boolean,
      extraMs: number,
    ): Promise<boolean> => {
      let ended = false;
      void proc.exit.then(() => (ended = true));
      const deadline = Date.now() + 90_000;
      while (!ended && Date.now() < deadline) {
        try {
          if (await stat(join(dataDir, 'jobs.sqlite')).then(() => when())) break;
        } catch {
          // the database is being created
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      const delay = Math.round(rnd() * extraMs);
      await new Promise((r) => setTimeout(r, delay));
      // Never between sending POST /job and storing its answer: no client can know then whether the
      // job exists (that moment has its own test below). Frozen by SIGSTOP, the process cannot move
      // while the database is read.
      for (;;) {
        if (ended) {
          log.push(`${label}: the process ended before the kill`);
          return false;
        }
        proc.child.kill('SIGSTOP');
        if (!jobsNow().some((j) => j.ownerPid === proc.child.pid && j.createSentAt)) break;
        proc.child.kill('SIGCONT');
        await new Promise((r) => setTimeout(r, 3));
      }
      proc.child.kill('SIGKILL');
      await proc.exit;
      log.push(
        `${label}: killed ${delay} ms after the moment; states ${states().join(',')}; engine ${JSON.stringify(engine.stats)}`,
      );
      return true;
    };

    const submit = run([
      'submit',
      ...scans,
      '--mesh',
      'mandible',
      '--mesh',
      'left_nerve,right_nerve',
      '--format',
      'stl',
      '--out',
      out,
    ]);
    const killedPacking = await killWhen(
      submit,
      'while packing',
      () => held(submit, ['preparing']) && engine.stats.uploads === 0,
      400,
    );
    const r1 = run(['resume']);
    const killedUploading = await killWhen(r1, 'while uploading', () => held(r1, ['uploading']), 150);
    const r2 = run(['resume']);
    // Each job stays processing at least 700 ms (the engine's delay) and is first polled after 1 s.
    const killedAfter = await killWhen(
      r2,
      'after the uploads',
      () =>
        held(r2, ['processing', 'downloading']) &&
        states().every((s) => ['processing', 'downloading', 'done'].includes(s)),
      300,
    );
    const last = run(['resume', '--json']);
    const code = await last.exit;
    console.log(log.join('\n'));
    expect(code).toBe(0);
    expect([killedPacking, killedUploading, killedAfter]).toEqual([true, true, true]);

    const report = JSON.parse(last.stdout()) as { jobs: { state: string }[] };
    expect(report.jobs.every((j) => j.state === 'done')).toBe(true);
    const store = new JobStore((db ??= openJobDatabase(dataDir)));
    const jobs = store.list();
    expect(jobs).toHaveLength(4);
    expect(jobs.map((j) => j.state)).toEqual(Array(4).fill('done'));
    // Exactly one engine job per scan: no job was created twice, whatever the kills interrupted.
    expect(engine.stats.jobsCreated).toBe(4);
    expect(new Set(jobs.map((j) => j.remoteJobId)).size).toBe(4);
    for (const j of jobs) expect(store.events(j.id).filter((e) => e.to === 'submitting')).toHaveLength(1);

    // Every mesh complete: the size of the mesh the engine served, and nothing else in the folder.
    const stl = (await stat(join(FIXTURES, 'mesh', 'spider-binary.stl'))).size;
    const files: string[] = [];
    const walk = async (d: string): Promise<void> => {
      for (const e of await readdir(d, { withFileTypes: true })) {
        if (e.isDirectory()) await walk(join(d, e.name));
        else files.push(join(d, e.name));
      }
    };
    await walk(out);
    // One folder per job, and in each the file that says which job it is.
    const manifests = files.filter((f) => basename(f) === JOB_MANIFEST);
    expect(manifests).toHaveLength(4);
    const owners = await Promise.all(
      manifests.map(async (f) => (JSON.parse(await readFile(f, 'utf8')) as { job: string }).job),
    );
    expect([...owners].sort()).toEqual(jobs.map((j) => j.id).sort());
    for (const j of jobs)
      for (const o of j.outputs)
        expect(manifests[owners.indexOf(j.id)]).toBe(join(dirname(o.path as string), JOB_MANIFEST));
    files.splice(0, files.length, ...files.filter((f) => basename(f) !== JOB_MANIFEST));
    expect(files).toHaveLength(8);
    for (const f of files) {
      expect(relative(out, f)).toMatch(/^[^/]+\/(mandible|left_nerve\+right_nerve)\.stl$/);
      expect((await stat(f)).size).toBe(stl);
    }
    for (const j of jobs) for (const o of j.outputs) expect(files).toContain(o.path);
  }, 240_000);

  it('a kill between sending POST /job and storing its answer: the job is never created again silently', async () => {
    const dataDir = join(dir, 'data-window');
    const out = join(dir, 'out-window');
    const scan = join(dir, 'scans', 'window');
    await mkdir(scan, { recursive: true });
    await cp(join(DICOM, 'ct-human-cranium-teeth'), scan, { recursive: true });
    const before = engine.stats.jobsCreated;
    // The engine creates the job at once but sends its answer at 10 bytes a second.
    engine.setFaults({ slowBody: { bytesPerSecond: 10, on: ['job'] } });
    const cli = (args: string[]) =>
      spawn(process.execPath, ['--import', 'tsx', CLI, ...args, ...connectionArgs(engine)], {
        env: { ...process.env, SCAN2MESH_DATA_DIR: dataDir, SCAN2MESH_CLIENT_SECRET: SECRET },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const submit = cli(['submit', scan, '--mesh', 'mandible', '--out', out]);
    const ended = new Promise((r) => submit.on('exit', r));
    const deadline = Date.now() + 60_000;
    while (engine.stats.jobsCreated === before && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    submit.kill('SIGKILL');
    await ended;
    engine.setFaults({});
    expect(engine.stats.jobsCreated).toBe(before + 1);

    const resume = cli(['resume', '--json']);
    let stdout = '';
    resume.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise((r) => resume.on('close', r));
    // 5: the job's creation may have reached the service (README, "Command line").
    expect(code).toBe(5);
    const [job] = (
      JSON.parse(stdout) as { jobs: { state: string; error: { code: string; action: string } }[] }
    ).jobs;
    expect(job?.state).toBe('failed');
    expect(job?.error.code).toBe('job-may-exist');
    expect(job?.error.action).toMatch(/submit it again only if there is none.*--resubmit/);
    expect(engine.stats.jobsCreated).toBe(before + 1);
  }, 120_000);
});
