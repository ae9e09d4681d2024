import { describe, expect, it } from 'vitest';
import type { JobView } from '../../src-shared/jobs';
import { commonFolder, groupByBatch, jobShare, matchesFilter, summarizeBatch } from './batch-summary';

const T0 = Date.parse('2026-01-01T10:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

const job = (id: string, over: Partial<JobView> = {}): JobView => ({
  id,
  batchId: 'b1',
  scanName: 'HEAD',
  seriesDescription: 'BONE',
  meshes: [{ structures: ['skull'], extension: '.stl' }],
  profileId: 'local-engine',
  profileName: 'Local engine',
  deidentify: false,
  state: 'queued',
  progress: {},
  outputs: [],
  outputDir: '/out',
  createdAt: at(0),
  updatedAt: at(0),
  priority: 0,
  submissionSeq: 1,
  ...over,
});

const done = (id: string, finish: number, file: string): JobView =>
  job(id, {
    state: 'done',
    startedAt: at(0),
    finishedAt: at(finish),
    updatedAt: at(finish),
    outputs: [{ path: file, bytes: 10, structures: ['skull'], extension: '.stl' }],
  });

describe('batch summary', () => {
  it('counts jobs by state and weighs running ones by their step and fraction', () => {
    const jobs = [
      done('a', 40, '/out/A/s1/skull.stl'),
      job('b', { state: 'processing', progress: { fraction: 0.5 } }),
      job('c'),
      job('d', { state: 'failed' }),
    ];
    const s = summarizeBatch('b1', jobs, T0 + 60_000);
    expect(s.counts).toEqual({ waiting: 1, running: 1, done: 1, failed: 1, canceled: 0 });
    // a and d count whole, b is 0.3 + 0.6 * 0.5 = 0.6 of its way, c nothing: 2.6 / 4.
    expect(s.progress).toBeCloseTo(0.65, 5);
    expect(s.elapsedMs).toBe(60_000);
    // 60 s for 65 %: 35 % more takes 60 / 0.65 * 0.35 s.
    expect(s.etaMs).toBe(Math.round((60_000 / 0.65) * 0.35));
    expect(s.finished).toBe(false);
    expect(s.revealable).toEqual({ jobId: 'a', index: 0 });
  });

  it('gives no estimate before any job has ended, and none once all have', () => {
    const running = summarizeBatch('b1', [job('a', { state: 'uploading' }), job('b')], T0 + 5000);
    expect(running.etaMs).toBeNull();
    const over = summarizeBatch(
      'b1',
      [done('a', 30, '/out/A/x.stl'), done('b', 50, '/out/B/y.stl')],
      T0 + 99_000,
    );
    expect(over.finished).toBe(true);
    expect(over.etaMs).toBeNull();
    // The clock stops at the last job's finish, not at now.
    expect(over.elapsedMs).toBe(50_000);
    expect(over.outputDir).toBe('/out');
  });

  it('says a batch is paused when its jobs say so', () => {
    expect(summarizeBatch('b1', [job('a', { batchPaused: true })], T0).paused).toBe(true);
    expect(summarizeBatch('b1', [job('a')], T0).paused).toBe(false);
  });

  it('keeps the jobs of one submit together, and a job without a batch on its own', () => {
    const groups = groupByBatch([
      job('a'),
      job('x', { batchId: 'b2' }),
      job('b'),
      job('old', { batchId: undefined }),
    ]);
    expect(groups.map((g) => [g.batchId, g.jobs.map((j) => j.id)])).toEqual([
      ['b1', ['a', 'b']],
      ['b2', ['x']],
      ['job:old', ['old']],
    ]);
  });

  it('filters by state group', () => {
    expect(matchesFilter(job('a', { state: 'notifying' }), 'running')).toBe(true);
    expect(matchesFilter(job('a'), 'waiting')).toBe(true);
    expect(matchesFilter(job('a', { state: 'canceled' }), 'failed')).toBe(false);
    expect(matchesFilter(job('a', { state: 'canceled' }), 'all')).toBe(true);
  });

  it('finds the common folder on either kind of path', () => {
    expect(commonFolder(['/out/A/s1', '/out/B/s2'])).toBe('/out');
    expect(commonFolder(['C:\\out\\A', 'C:\\out\\B'])).toBe('C:\\out');
    expect(jobShare(job('a', { state: 'canceled' }))).toBe(1);
  });
});
