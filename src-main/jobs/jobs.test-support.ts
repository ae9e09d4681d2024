import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { RunningEngine } from '../engine/local-engine.js';
import { ScanService } from '../scans/scan-service.js';
import { createKeytarSecretStore, type SecretStore } from '../secrets/secret-store.js';
import { ProfileStore } from '../settings/profile-store.js';
import type { CustomConnection } from '../connections/custom-connection.js';
import { JOB_STATES, type JobState, type JobView, type MeshChoice } from '../../src-shared/jobs.js';
import { openJobDatabase } from './job-db.js';
import { JobManager, type JobManagerOptions } from './job-manager.js';
import { JobStore } from './job-store.js';

/** The shared fixtures, relative to the project root as every test reads them. */
export const FIXTURES = resolve(process.cwd(), '..', 'shared', 'fixtures');
export const DICOM = join(FIXTURES, 'dicom');

/**
 * The real keychain store under a service name of the test's own. The jobs tests give their connections
 * directly and never read a secret; if one ever did, it would meet the real keychain, not a stand-in.
 */
export function testSecrets(): SecretStore {
  return createKeytarSecretStore(`scan2mesh-test-${randomUUID()}`);
}

export function connectionOf(engine: RunningEngine): CustomConnection {
  return {
    baseUrl: engine.baseUrl,
    authUrl: engine.authUrl,
    audience: engine.audience,
    clientId: engine.clientId,
    clientSecret: engine.clientSecret,
    name: 'test engine',
  };
}

/** Short waits everywhere, so that tests of the queue take seconds, not minutes. */
export const FAST: Pick<JobManagerOptions, 'policy' | 'client' | 'watchMs'> = {
  policy: {
    initialMs: 30,
    maxMs: 120,
    factor: 1.5,
    jitter: 0.2,
    firstPollDelayMs: 20,
    transientBaseMs: 50,
    transientMaxMs: 400,
    giveUpAfterMs: 20_000,
    unknownJobGraceMs: 300,
  },
  client: {
    retry: { baseDelayMs: 10, maxDelayMs: 80, maxAttempts: 6, maxRetryAfterMs: 5_000 },
    idleTimeoutMs: 10_000,
  },
  watchMs: 100,
};

export interface Harness {
  dir: string;
  dataDir: string;
  outDir: string;
  scans: ScanService;
  manager: JobManager;
  open(extra?: Partial<JobManagerOptions>): Promise<JobManager>;
  close(): Promise<void>;
}

/** A data folder, an output folder, a ScanService and a JobManager connected to `engine`. */
export async function harness(
  engine: RunningEngine,
  extra: Partial<JobManagerOptions> = {},
): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'scan2mesh-jobs-'));
  const dataDir = join(dir, 'data');
  const outDir = join(dir, 'out');
  await mkdir(dataDir, { recursive: true });
  const scans = new ScanService({ tempDir: dir });
  const managers: JobManager[] = [];
  const open = async (more: Partial<JobManagerOptions> = {}): Promise<JobManager> => {
    const m = await JobManager.open({
      dataDir,
      profiles: new ProfileStore(dataDir),
      secrets: testSecrets(),
      scans,
      connections: [connectionOf(engine)],
      ...FAST,
      ...extra,
      ...more,
    });
    managers.push(m);
    return m;
  };
  const manager = await open();
  return {
    dir,
    dataDir,
    outDir,
    scans,
    manager,
    open,
    async close() {
      for (const m of managers) await m.close();
      await scans.dispose();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Copies of one fixture scan in folders of their own: each copy is a scan (a series) of its own. */
export async function copiesOf(source: string, count: number, under: string): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const dest = join(under, `copy-${i + 1}`);
    await cp(source, dest, { recursive: true });
    out.push(dest);
  }
  return out;
}

/** The states a job goes to after 'queued' when nothing goes wrong, in the order of src-shared/jobs.ts. */
export const STATES_OF_A_RUN: readonly JobState[] = JOB_STATES.slice(1, JOB_STATES.indexOf('done') + 1);

/** The states a job went to, oldest first, from its event history. */
export function statesOf(m: JobManager, id: string): (JobState | undefined)[] {
  return m
    .history(id)
    .filter((e) => e.kind === 'state')
    .map((e) => e.to);
}

/** Writes a crash state into the job database as another process would have left it. */
export function writeAsAnotherProcess(dataDir: string, edit: (store: JobStore) => void): void {
  const db = openJobDatabase(dataDir);
  try {
    edit(new JobStore(db));
  } finally {
    db.close();
  }
}

/** The next start: a second manager on the data folder takes up what is unfinished, until `id` ends. */
export async function resumeUntilEnded(
  h: Harness,
  id: string,
): Promise<{ m: JobManager; ended: JobView | undefined }> {
  const m = await h.open();
  await m.resumeUnfinished();
  const [ended] = await m.waitFor([id]);
  return { m, ended };
}

/** The mesh most tests ask for. */
export const MANDIBLE_STL: MeshChoice[] = [{ structures: ['mandible'], extension: '.stl' }];

/** Reads the scan at `paths` and submits its first series as one job into the harness's output folder. */
export async function submitScan(
  h: Harness,
  paths: string[],
  meshes: MeshChoice[] = MANDIBLE_STL,
): Promise<JobView> {
  const r = await h.scans.intake(paths);
  const [job] = await h.manager.submit({
    seriesIds: [r.series[0]!.id],
    meshes,
    deidentify: false,
    outputDir: h.outDir,
  });
  return job!;
}

/** Waits until `cond` holds, looking again every 10 ms; the test's own timeout bounds it. */
export async function until(cond: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await cond())) await new Promise((r) => setTimeout(r, 10));
}
