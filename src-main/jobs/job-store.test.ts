import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { AppError } from '../../src-shared/errors.js';
import { JobViewSchema } from '../../src-shared/jobs.js';
import { openJobDatabase, SCHEMA_VERSION, type Db } from './job-db.js';
import { JOB_COLUMNS, jobRowOf } from './job-rows.js';
import { JobStore, TransitionRefused, type NewJob } from './job-store.js';
import { toView } from './job-view.js';

let dir: string;
let db: Db;
let store: JobStore;

const job = (id: string): NewJob => ({
  id,
  batchId: 'b1',
  profileId: 'local-engine',
  profileName: 'Local engine',
  seriesId: 's1',
  scanName: 'Doe Jane',
  seriesDescription: 'CBCT 0.3',
  sourceFiles: ['/scans/a/1.dcm', '/scans/a/2.dcm'],
  meshes: [
    { structures: ['mandible'], extension: '.stl' },
    { structures: ['left_nerve', 'right_nerve'], extension: '.ply' },
  ],
  deidentify: true,
  outputDir: '/out',
  namingTemplate: '{scan}/{series}/{structures}{ext}',
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-store-'));
  db = openJobDatabase(dir);
  store = new JobStore(db);
});

afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

describe('job database', () => {
  it('is in WAL mode with the schema at its latest version, and opening it again changes nothing', () => {
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    store.insert([job('j1')]);
    db.close();
    db = openJobDatabase(dir);
    store = new JobStore(db);
    expect(store.list().map((j) => j.id)).toEqual(['j1']);
  });

  it('says which file is damaged and what to do, and leaves it as it was', async () => {
    const other = await mkdtemp(join(tmpdir(), 'scan2mesh-store-bad-'));
    try {
      const file = join(other, 'jobs.sqlite');
      const garbage = randomBytes(20_000);
      await writeFile(file, garbage);
      const e = (() => {
        try {
          openJobDatabase(other);
          return undefined;
        } catch (err) {
          return err as AppError;
        }
      })();
      expect(e).toBeInstanceOf(AppError);
      expect(e!.message).toBe(`The job list ${file} is damaged (it is not a database scan2mesh can read).`);
      expect(e!.action).toMatch(/^Move .*jobs\.sqlite .* to start a new, empty job list; keep it/);
      expect(await readFile(file)).toEqual(garbage);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('reads job rows by every column of the table, each into its own field', () => {
    const columns = (db.prepare('PRAGMA table_info(jobs)').all() as { name: string }[]).map((c) => c.name);
    expect([...JOB_COLUMNS].sort()).toEqual([...columns].sort());
    const row = jobRowOf([...JOB_COLUMNS]);
    for (const c of JOB_COLUMNS) expect(row[c]).toBe(c);
  });

  it('refuses a database written by a newer version, saying what to do', () => {
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    expect(() => openJobDatabase(dir)).toThrow(/newer version of scan2mesh/);
  });

  it('migrates a database of an older version (here: empty, version 0)', async () => {
    const other = join(dir, 'old');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(other);
    new Database(join(other, 'jobs.sqlite')).close();
    const migrated = openJobDatabase(other);
    expect(migrated.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    migrated.close();
  });
});

describe('JobStore', () => {
  it('keeps the acceptance of burned-in annotation across a restart, and only where it was given', () => {
    store.insert([{ ...job('j1'), acceptBurnedIn: true }, job('j2')]);
    db.close();
    db = openJobDatabase(dir);
    store = new JobStore(db);
    expect(store.get('j1')?.acceptBurnedIn).toBe(true);
    expect(store.get('j2')?.acceptBurnedIn).toBeUndefined();
  });

  it('stores a job with its inputs and outputs and gives the view the UI shows', () => {
    const [rec] = store.insert([job('j1')]);
    expect(rec?.state).toBe('queued');
    expect(rec?.inputs).toEqual([{ name: 'cbct', uploaded: false, notified: false }]);
    expect(rec?.outputs.map((o) => o.structures)).toEqual([['mandible'], ['left_nerve', 'right_nerve']]);
    const view = toView(rec!);
    expect(JobViewSchema.parse(view)).toEqual(view);
    expect(view.outputs).toEqual([]);
  });

  it('moves a job only along the state machine, and records every move', () => {
    store.insert([job('j1')]);
    store.transition('j1', 'preparing');
    store.transition('j1', 'submitting', { createSentAt: '2026-01-01T00:00:00.000Z' });
    const up = store.transition(
      'j1',
      'uploading',
      { remoteJobId: 'r-1', createSentAt: null },
      { remoteJobId: 'r-1' },
    );
    expect(up.remoteJobId).toBe('r-1');
    expect(up.createSentAt).toBeUndefined();
    expect(up.startedAt).toBeDefined();
    expect(() => store.transition('j1', 'done')).toThrow(TransitionRefused);
    const events = store.events('j1');
    expect(events.map((e) => e.to ?? e.kind)).toEqual(['queued', 'preparing', 'submitting', 'uploading']);
    expect(events[3]?.detail).toEqual({ remoteJobId: 'r-1' });
  });

  it('gives after each transition the record a fresh read gives, inputs and outputs included', () => {
    store.insert([job('j1')]);
    const fresh = (): unknown => {
      const other = new JobStore(openJobDatabase(dir));
      const r = other.get('j1');
      other.close();
      return r;
    };
    store.get('j1');
    expect(store.transition('j1', 'preparing', { progress: { stage: 'packing the scan' } })).toEqual(fresh());
    const up = store.transition('j1', 'submitting', { createSentAt: '2026-01-01T00:00:00.000Z' }, undefined, {
      inputs: [{ name: 'cbct', patch: { packagePath: '/p/scan.zip', extension: '.zip', bytes: 10 } }],
    });
    expect(up.inputs[0]).toMatchObject({ packagePath: '/p/scan.zip', bytes: 10 });
    expect(up).toEqual(fresh());
    store.saveOutput('j1', 1, { path: '/out/n.ply', bytes: 4 });
    expect(store.transition('j1', 'uploading', { remoteJobId: 'r-1' })).toEqual(fresh());
    const forgot = store.transition('j1', 'submitting', { remoteJobId: null }, undefined, {
      forgetRemote: true,
    });
    expect(forgot.outputs[1]?.status).toBe('pending');
    expect(forgot).toEqual(fresh());
  });

  it('writes the changes of many jobs in one transaction with together(): all of them or none', () => {
    store.insert([job('j1'), job('j2')]);
    const claimBoth = (fail: boolean) => () =>
      store.together(() => {
        store.claim('j1', 'A', 1, 60_000);
        store.claim('j2', 'A', 1, 60_000);
        if (fail) throw new Error('no');
      });
    expect(claimBoth(true)).toThrow('no');
    expect([store.get('j1')?.owner, store.get('j2')?.owner]).toEqual([undefined, undefined]);
    claimBoth(false)();
    expect([store.get('j1')?.owner, store.get('j2')?.owner]).toEqual(['A', 'A']);
  });

  it('writes the state changes asked in one turn together, each committed when its promise resolves', async () => {
    store.insert([job('j1'), job('j2'), job('j3'), job('j4')]);
    const other = new JobStore(openJobDatabase(dir));
    const a = store.transitionSoon('j1', 'preparing');
    const b = store.transitionSoon('j2', 'preparing', {}, undefined, { durable: true });
    // Refused by the state machine: the others of its batch are written all the same.
    const refused = store.transitionSoon('j3', 'done');
    // Withdrawn before the batch is written (its runner stopped): never written.
    const withdrawn = store.transitionSoon('j4', 'preparing', {}, undefined, {}, () => true);
    // Nothing is written before the end of the turn.
    expect(other.get('j1')?.state).toBe('queued');
    await expect(a).resolves.toMatchObject({ id: 'j1', state: 'preparing' });
    await expect(b).resolves.toMatchObject({ id: 'j2', state: 'preparing' });
    await expect(refused).rejects.toBeInstanceOf(TransitionRefused);
    await expect(withdrawn).rejects.toMatchObject({ code: 'canceled' });
    const seen = ['j1', 'j2', 'j3', 'j4'].map((id) => {
      const fresh = new JobStore(openJobDatabase(dir));
      const state = fresh.get(id)?.state;
      fresh.close();
      return state;
    });
    expect(seen).toEqual(['preparing', 'preparing', 'queued', 'queued']);
    other.close();
  });

  it('marks a finished job and clears the mark when it is retried', () => {
    store.insert([job('j1')]);
    store.transition('j1', 'canceled');
    expect(store.get('j1')?.finishedAt).toBeDefined();
    const again = store.transition('j1', 'queued');
    expect(again.finishedAt).toBeUndefined();
  });

  it('finds a job by its id, the service job id or a unique prefix', () => {
    store.insert([job('aaaa1111-x'), job('aaaa2222-y'), job('bbbb3333-z')]);
    store.transition('bbbb3333-z', 'preparing');
    store.transition('bbbb3333-z', 'submitting');
    store.transition('bbbb3333-z', 'uploading', { remoteJobId: 'remote-77' });
    expect(store.find('aaaa1111-x')?.id).toBe('aaaa1111-x');
    expect(store.find('remote-77')?.id).toBe('bbbb3333-z');
    expect(store.find('bbbb')?.id).toBe('bbbb3333-z');
    expect(store.find('aaaa')).toBeUndefined();
    expect(store.find('a%')).toBeUndefined();
  });

  it('lets one owner hold a job at a time; a lapsed lease or a named gone owner frees it', () => {
    store.insert([job('j1')]);
    expect(store.claim('j1', 'A', 1, 60_000)).toBe(true);
    expect(store.claim('j1', 'B', 2, 60_000)).toBe(false);
    expect(store.claim('j1', 'A', 1, 60_000)).toBe(true);
    expect(store.claim('j1', 'B', 2, 60_000, 'A')).toBe(true);
    store.heartbeat('B', -1);
    expect(store.claim('j1', 'C', 3, 60_000)).toBe(true);
    store.release('C');
    expect(store.get('j1')?.owner).toBeUndefined();
  });

  it('sees commits of another connection through data_version', () => {
    const other = new JobStore(openJobDatabase(dir));
    const v = store.dataVersion();
    other.insert([job('j2')]);
    expect(store.dataVersion()).not.toBe(v);
    expect(store.changedSince('1970-01-01T00:00:00.000Z').map((j) => j.id)).toEqual(['j2']);
    other.close();
  });

  it('reads a job again after any write of it, here or by another connection', () => {
    store.insert([job('j1')]);
    const first = store.get('j1');
    // Read twice without a write between: the same record, not a second read.
    expect(store.get('j1')).toBe(first);
    store.saveOutput('j1', 0, { path: '/out/m.stl', bytes: 3 });
    expect(store.get('j1')?.outputs[0]).toMatchObject({ status: 'saved', path: '/out/m.stl' });
    store.updateProgress('j1', { stage: 'packing the scan' });
    expect(store.get('j1')?.progress.stage).toBe('packing the scan');
    const other = new JobStore(openJobDatabase(dir));
    other.transition('j1', 'canceled');
    expect(store.get('j1')?.state).toBe('canceled');
    other.close();
  });
});

describe('job order', () => {
  // A batch's jobs share one created_at; ordered then by their random ids, `status`, the Jobs page
  // and the processing order were shuffled against the order submitted (a review).
  const ids = ['e-third', 'b-first', 'd-fourth', 'a-last', 'c-second'];
  const batch = (list: string[], batchId: string): NewJob[] => list.map((id) => ({ ...job(id), batchId }));

  it('lists, queues and reads back a batch in the order submitted, whatever the ids, after the older batches', () => {
    store.insert(batch(ids, 'b1'));
    store.insert(batch(['0-next-batch'], 'b2'));
    const all = [...ids, '0-next-batch'];
    expect(store.list().map((j) => j.id)).toEqual(all);
    expect(store.batch('b1').map((j) => j.id)).toEqual(ids);
    expect(store.unfinished().map((j) => j.id)).toEqual(all);
    expect(store.changedSince('').map((j) => j.id)).toEqual(all);
    expect(store.list().map((j) => toView(j).submissionSeq)).toEqual([1, 2, 3, 4, 5, 6]);
    // Another process (the command line beside the app) reads the same order.
    const other = new JobStore(openJobDatabase(dir));
    try {
      expect(other.list().map((j) => j.id)).toEqual(all);
      other.insert(batch(['00-from-other'], 'b3'));
    } finally {
      other.close();
    }
    expect(
      store
        .list()
        .map((j) => j.id)
        .at(-1),
    ).toBe('00-from-other');
    // A removed job's place is not taken by the next one submitted.
    store.remove('0-next-batch');
    store.remove('00-from-other');
    store.insert(batch(['000-after-removal'], 'b4'));
    expect(store.list().map((j) => j.id)).toEqual([...ids, '000-after-removal']);
  });

  it('keeps the order of jobs stored by an older version, as they were inserted', () => {
    store.insert(batch(ids, 'b1'));
    // The database as the version before submission order wrote it (two migrations back: the
    // queue's pauses came after).
    db.exec(
      'DROP TABLE queue_holds; DROP INDEX jobs_submission; ALTER TABLE jobs DROP COLUMN submission_seq;',
    );
    db.pragma(`user_version = ${SCHEMA_VERSION - 2}`);
    db.close();
    db = openJobDatabase(dir);
    store = new JobStore(db);
    expect(store.list().map((j) => j.id)).toEqual(ids);
    store.insert(batch(['0-new'], 'b2'));
    expect(store.unfinished().map((j) => j.id)).toEqual([...ids, '0-new']);
  });
});
