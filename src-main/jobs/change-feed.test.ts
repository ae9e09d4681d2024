import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobView } from '../../src-shared/jobs.js';
import { silentLogger } from '../logging/logger.js';
import { ChangeFeed } from './change-feed.js';
import { openJobDatabase, type Db } from './job-db.js';
import { JobStore, type NewJob } from './job-store.js';
import { toView } from './job-view.js';

let dir: string;
let db: Db;
let store: JobStore;
let feed: ChangeFeed;
let told: JobView[][];
/** Jobs whose runner stopped on an error it could not record (RunnerPool.crashOf stands in). */
const halted = new Set<string>();

const job: NewJob = {
  id: 'j1',
  batchId: 'b1',
  profileId: 'local-engine',
  profileName: 'Local engine',
  seriesId: 's1',
  scanName: 'phantom',
  seriesDescription: 'CT',
  sourceFiles: ['/scans/1.dcm'],
  meshes: [{ structures: ['skull'], extension: '.stl' }],
  deidentify: false,
  outputDir: '/out',
  namingTemplate: '{scan}/{structures}{ext}',
};

beforeEach(async () => {
  vi.useFakeTimers();
  halted.clear();
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-feed-'));
  db = openJobDatabase(dir);
  store = new JobStore(db);
  store.insert([job]);
  feed = new ChangeFeed(
    store,
    (r) => toView(r),
    () => {},
    silentLogger,
    {
      everyMs: 60_000,
      othersChanged: () => {},
    },
    (id) => halted.has(id),
  );
  told = [];
  feed.onChange((views) => told.push(views));
});

afterEach(async () => {
  feed.close();
  vi.useRealTimers();
  db.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the change feed', () => {
  it('tells progress at most once per tick, gathered', () => {
    feed.changed(['j1']);
    feed.changed(['j1']);
    vi.advanceTimersByTime(99);
    expect(told).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(told).toHaveLength(1);
    expect(told[0]!.map((v) => v.id)).toEqual(['j1']);
  });

  it('tells an end at the end of the turn, with the progress waiting for its tick', () => {
    feed.changed(['j1']);
    store.transition('j1', 'canceled', { progress: {} }, { by: 'user' });
    feed.changed(['j1'], true);
    vi.advanceTimersByTime(0);
    expect(told).toHaveLength(1);
    expect(told[0]![0]!.state).toBe('canceled');
    // Nothing is left for the progress tick: the job was told once.
    vi.advanceTimersByTime(100);
    expect(told).toHaveLength(1);
  });

  it('lets a waiter go as soon as its job has ended, not at the next progress tick', async () => {
    const ended = feed.waitFor(['j1']);
    store.transition('j1', 'canceled', { progress: {} }, { by: 'user' });
    feed.changed(['j1'], true);
    vi.advanceTimersByTime(0);
    await expect(ended).resolves.toMatchObject([{ id: 'j1', state: 'canceled' }]);
  });

  it('ends a wait on a job whose runner stopped on an error it could not record', async () => {
    store.transition('j1', 'preparing');
    let ended: JobView[] | undefined;
    void feed.waitFor(['j1']).then((v) => (ended = v));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(ended).toBeUndefined();
    // The job's row still says "preparing": the write of its failure is what failed.
    halted.add('j1');
    feed.changed(['j1'], true);
    await vi.advanceTimersByTimeAsync(0);
    expect(ended?.map((v) => [v.id, v.state])).toEqual([['j1', 'preparing']]);
    // A wait begun afterwards does not hang either.
    await expect(feed.waitFor(['j1'])).resolves.toHaveLength(1);
  });
});
