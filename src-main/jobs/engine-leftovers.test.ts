// The embedded local engine's job folder (a copy of the scan while it runs) goes with its app job: a
// review found it kept after `remove` of a job interrupted mid-processing, resumed by the next engine.
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobView } from '../../src-shared/jobs.js';
import { LOCAL_ENGINE_PROFILE } from '../../src-shared/profiles.js';
import type { RunningEngine } from '../engine/local-engine.js';
import { JobStore as EngineJobStore } from '../engine/server/job-store.js';
import { silentLogger } from '../logging/logger.js';
import { embeddedEngineDir } from '../platform/paths.js';
import { ScanService } from '../scans/scan-service.js';
import { startTestEngine } from '../service/test-engine.test-support.js';
import { ProfileStore } from '../settings/profile-store.js';
import { JobManager } from './job-manager.js';
import { DICOM, FAST, testSecrets } from './jobs.test-support.js';

let dir: string;
let dataDir: string;
let scans: ScanService;

/** `running`: the engine is the app's, started in this process (core.ts gives the queue both). */
const open = (localEngine?: () => Promise<RunningEngine>, running = false): Promise<JobManager> =>
  JobManager.open({
    dataDir,
    profiles: new ProfileStore(dataDir),
    secrets: testSecrets(),
    scans,
    ...(localEngine ? { localEngine } : {}),
    ...(localEngine && running ? { runningLocalEngine: localEngine } : {}),
    ...FAST,
  });

const ENHANCED_CT = join(DICOM, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm');

/** A job of the Enhanced CT on the local engine, once it reaches `state` (at once without one). */
async function submitted(m: JobManager, state?: string): Promise<JobView> {
  const { series } = await scans.intake([ENHANCED_CT]);
  const [job] = await m.submit({
    seriesIds: [series[0]!.id],
    meshes: [{ structures: ['mandible'], extension: '.stl' }],
    deidentify: false,
    profileId: LOCAL_ENGINE_PROFILE.id,
    outputDir: join(dir, 'out'),
  });
  while (state && m.get(job!.id)?.state !== state) await new Promise((r) => setTimeout(r, 20));
  return job!;
}

/** The engine jobs a new engine on the data folder would load, and resume those still processing. */
async function engineJobsOnDisk(): Promise<string[]> {
  const store = new EngineJobStore(embeddedEngineDir(dataDir), silentLogger);
  await store.load(7 * 24 * 3600_000);
  return store.all().map((j) => j.id);
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-engine-left-'));
  dataDir = join(dir, 'data');
  scans = new ScanService({ tempDir: dir });
});

afterEach(async () => {
  await scans.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe("the embedded engine's job folders", () => {
  it('go with a job removed after it was interrupted mid-processing, and are not resumed', async () => {
    // The app's engine, on the data folder as core.ts starts it, slow enough to be stopped mid-job.
    const { engine } = await startTestEngine({ dataDir: embeddedEngineDir(dataDir), stepMs: 60_000 });
    const m = await open(() => Promise.resolve(engine));
    // Processing on the engine: every input of the job uploaded (a copy of the scan in its folder).
    const job = await submitted(m, 'processing');
    const remoteJobId = m.get(job.id)!.remoteJobId!;
    // Ctrl+C: the engine keeps the job as processing on disk, to resume it at its next start.
    await m.close();
    await engine.close();
    expect(await engineJobsOnDisk()).toEqual([remoteJobId]);
    expect(await readdir(join(embeddedEngineDir(dataDir), 'jobs', remoteJobId, 'inputs'))).not.toEqual([]);

    const again = await open();
    const removed = await again.remove(job.id);
    expect(removed).toContainEqual(
      expect.objectContaining({
        kind: 'engine job',
        path: join(embeddedEngineDir(dataDir), 'jobs', remoteJobId),
      }),
    );
    expect(await engineJobsOnDisk()).toEqual([]);
    await again.close();
  });

  // A review: the engine knows nothing of a cancel (the interface has none). It went on making meshes
  // of the scan (its copy kept until then), and kept them 7 days; `prune` did not see them.
  it('go with a job canceled while the engine processes it, which stops there; a retry makes a new one', async () => {
    const { engine } = await startTestEngine({ dataDir: embeddedEngineDir(dataDir), stepMs: 60_000 });
    const m = await open(() => Promise.resolve(engine), true);
    const job = await submitted(m, 'processing');
    const first = m.get(job.id)!.remoteJobId!;
    expect(await engineJobsOnDisk()).toEqual([first]);
    m.cancel(job.id);
    await expect.poll(engineJobsOnDisk, { timeout: 30_000 }).toEqual([]);
    await engine.close();
    // Its engine job is gone, so a retry cannot go on with it: a new one is made.
    const restarted = await startTestEngine({ dataDir: embeddedEngineDir(dataDir), stepMs: 60_000 });
    const again = await open(() => Promise.resolve(restarted.engine), true);
    await m.close();
    again.retry(job.id);
    await expect.poll(() => again.get(job.id)?.state, { timeout: 30_000 }).toBe('processing');
    expect(again.get(job.id)?.remoteJobId).not.toBe(first);
    again.cancel(job.id);
    await expect.poll(engineJobsOnDisk, { timeout: 30_000 }).toEqual([]);
    await again.close();
    await restarted.engine.close();
  });

  it("go once a job's meshes are saved: the engine's copies of them are of no more use", async () => {
    const { engine } = await startTestEngine({ dataDir: embeddedEngineDir(dataDir) });
    const m = await open(() => Promise.resolve(engine), true);
    const job = await submitted(m);
    const [done] = await m.waitFor([job.id]);
    expect(done?.state).toBe('done');
    // Its record goes first, its folder as the removal ends (the stressed suite once looked between).
    const jobsDir = join(embeddedEngineDir(dataDir), 'jobs');
    await expect
      .poll(async () => [await engineJobsOnDisk(), await readdir(jobsDir)], { timeout: 30_000 })
      .toEqual([[], []]);
    // One an older version left (it kept them 7 days) goes with `prune`, and is listed.
    const left = join(embeddedEngineDir(dataDir), 'jobs', done!.remoteJobId!);
    await mkdir(join(left, 'work'), { recursive: true });
    await writeFile(join(left, 'work', 'mesh-1-mandible.stl'), 'solid mandible\n');
    const pruned = await m.prune();
    expect(pruned).toContainEqual(expect.objectContaining({ kind: 'engine job', path: left }));
    expect(await readdir(join(embeddedEngineDir(dataDir), 'jobs'))).toEqual([]);
    await m.close();
    await engine.close();
  });

  it('that no job refers to are pruned, unless made in the last minute', async () => {
    const jobs = join(embeddedEngineDir(dataDir), 'jobs');
    const old = join(jobs, 'a1b2c3d4-0000-4000-8000-000000000001');
    const fresh = join(jobs, 'a1b2c3d4-0000-4000-8000-000000000002');
    for (const d of [old, fresh]) await mkdir(join(d, 'inputs'), { recursive: true });
    const hourAgo = new Date(Date.now() - 3600_000);
    await utimes(old, hourAgo, hourAgo);
    const m = await open();
    const removed = await m.prune();
    expect(removed.filter((r) => r.kind === 'engine job').map((r) => r.path)).toEqual([old]);
    expect(await readdir(jobs)).toEqual([fresh.slice(jobs.length + 1)]);
    await m.close();
  });
});
