import { describe, expect, it } from 'vitest';
import type { JobView } from '../../src-shared/jobs';
import {
  describeMeshes,
  elapsedMs,
  errorActions,
  jobOrder,
  retriable,
  progressFraction,
  progressText,
  stageName,
  summarizeJobs,
} from './job-format';

const job = (over: Partial<JobView> = {}): JobView => ({
  id: 'j1',
  scanName: 'HEAD',
  seriesDescription: 'BONE BRAIN 1MM',
  meshes: [{ structures: ['mandible'], extension: '.stl' }],
  profileId: 'local-engine',
  profileName: 'Local engine',
  deidentify: true,
  state: 'queued',
  progress: {},
  outputs: [],
  outputDir: '/out',
  createdAt: '2026-01-01T10:00:00.000Z',
  updatedAt: '2026-01-01T10:00:00.000Z',
  priority: 0,
  submissionSeq: 1,
  ...over,
});

describe('job formatting', () => {
  it('measures progress by bytes when they are known, else by the fraction, else not at all', () => {
    expect(progressFraction(job({ state: 'uploading', progress: { bytesDone: 25, bytesTotal: 100 } }))).toBe(
      0.25,
    );
    expect(progressFraction(job({ state: 'processing', progress: { fraction: 0.4 } }))).toBe(0.4);
    expect(progressFraction(job({ state: 'submitting', progress: {} }))).toBeNull();
  });

  it('counts elapsed time from the start to the finish, or to now while running', () => {
    const now = Date.parse('2026-01-01T10:01:30.000Z');
    expect(elapsedMs(job({ state: 'processing', startedAt: '2026-01-01T10:00:10.000Z' }), now)).toBe(80_000);
    const done = job({
      state: 'done',
      startedAt: '2026-01-01T10:00:10.000Z',
      finishedAt: '2026-01-01T10:00:45.000Z',
    });
    expect(elapsedMs(done, now)).toBe(35_000);
  });

  it('names the meshes with their labels, the file count and the format', () => {
    expect(
      describeMeshes(
        job({
          meshes: [
            { structures: ['mandible'], extension: '.stl' },
            { structures: ['all_nerves', 'airway'], extension: '.stl' },
          ],
        }),
      ),
    ).toBe('Mandible, Both mandibular canals, Airway (2 files, STL)');
  });

  it('offers the actions that fit the error', () => {
    const kinds = (j: JobView, local = false) => errorActions(j, local).map((a) => a.kind);
    const failed = (code: NonNullable<JobView['error']>['code'], retryable?: boolean) =>
      job({
        state: 'failed',
        error: { code, message: 'x', ...(retryable === undefined ? {} : { retryable }) },
      });
    expect(kinds(failed('network'))).toEqual(['retry', 'edit-connection']);
    expect(kinds(failed('network'), true)).toEqual(['retry']);
    expect(kinds(failed('auth-failed', false))).toEqual(['edit-connection']);
    expect(kinds(failed('bad-input', false))).toEqual(['rescan']);
    expect(kinds(failed('disk-full', false))).toEqual(['retry']);
    expect(kinds(failed('job-unknown', false))).toEqual(['retry']);
    // A remote service's failed job may pass on a retry; the local engine's refusal comes again.
    expect(kinds(failed('job-failed'))).toEqual(['retry']);
    expect(kinds(failed('job-failed', false), true)).toEqual(['rescan']);
    expect(kinds(job({ state: 'processing' }))).toEqual([]);
    expect(kinds(job({ state: 'canceled' }))).toEqual(['retry']);
    // A job that may exist on the service is never offered a plain retry, only a knowing resubmit.
    const mayExist = errorActions(failed('job-may-exist', false), false);
    expect(mayExist).toEqual([{ kind: 'resubmit', label: 'Submit again (the service may bill twice)' }]);
  });

  it('says a job sent and waiting its turn at the engine is waiting, with no percent', () => {
    const sent = job({ state: 'processing', progress: { stage: 'queued', fraction: 0 } });
    expect(progressText(sent)).toBe('Sent, waiting its turn');
  });

  it('retries in a batch only what a retry may change, as each row offers it', () => {
    const local = new Set(['local-engine']);
    const refused = job({
      id: 'refused',
      state: 'failed',
      error: { code: 'job-failed', message: 'No teeth were found', retryable: false },
    });
    const offline = job({ id: 'offline', state: 'failed', error: { code: 'network', message: 'x' } });
    const canceled = job({ id: 'canceled', state: 'canceled' });
    const done = job({ id: 'done', state: 'done' });
    const ids = (js: JobView[]) => js.map((j) => j.id);
    expect(ids(retriable([refused, offline, canceled, done], local))).toEqual(['offline', 'canceled']);
    // A remote service's failed job (no word on whether it is final) may pass on a retry.
    const remote = job({ id: 'remote', state: 'failed', error: { code: 'job-failed', message: 'x' } });
    expect(ids(retriable([remote], new Set()))).toEqual(['remote']);
  });

  it('sums up a list of jobs', () => {
    expect(
      summarizeJobs([job(), job({ state: 'done' }), job({ state: 'failed' }), job({ state: 'canceled' })]),
    ).toEqual({ active: 0, waiting: 1, done: 1, failed: 1 });
    expect(summarizeJobs([job({ state: 'processing' }), job({ state: 'uploading' })])).toMatchObject({
      active: 2,
      waiting: 0,
    });
  });
});

describe('stage names', () => {
  const at = (stage: string | undefined, fraction?: number, state: JobView['state'] = 'processing') =>
    job({
      state,
      progress: {
        ...(stage !== undefined ? { stage } : {}),
        ...(fraction !== undefined ? { fraction } : {}),
      },
    });

  it('names the local engine steps as the five stages, with the percent', () => {
    expect(progressText(at('reading 250 DICOM files', 0.05))).toBe('Reading the scan · 5 %');
    expect(progressText(at('deriving thresholds from the histogram', 0.35))).toBe('Reading the scan · 35 %');
    expect(progressText(at('segmenting skull', 0.4))).toBe('Segmenting · 40 %');
    expect(progressText(at('extracting the surface of skull', 0.58))).toBe('Making the surface · 58 %');
    expect(progressText(at('smoothing and simplifying skull', 0.76))).toBe('Simplifying · 76 %');
    expect(progressText(at('writing skull.stl', 0.91))).toBe('Writing the mesh · 91 %');
  });

  it('shows a service’s own words, and the state when there are none', () => {
    expect(stageName(at('aligning teeth'))).toBe('Aligning teeth');
    expect(progressText(at(undefined))).toBe('Processing');
    expect(progressText(at('waiting for the service', 0))).toBe('Processing · 0 %');
  });

  it('says a waiting job is held while paused, and a running one goes on', () => {
    expect(stageName(at('paused', undefined, 'queued'))).toBe('Held: paused');
    expect(stageName(at('paused', undefined, 'uploading'))).toBe('Uploading');
  });
});

describe('jobOrder', () => {
  it('lists the newest submission first, and the jobs of one submission in the order submitted', () => {
    // A review: a batch's jobs, made at one moment, came out as Series 5, 3, 2, 4, 1.
    const at = '2026-11-30T10:00:00.000Z';
    const batch = [1, 2, 3, 4, 5].map((n) =>
      job({
        id: `z${6 - n}`,
        scanName: n % 2 ? 'DICOM' : 'patient-10',
        seriesDescription: `Series ${n}`,
        createdAt: at,
        submissionSeq: 10 + n,
      }),
    );
    const newer = job({
      id: 'n',
      seriesDescription: 'newer',
      createdAt: '2026-11-30T11:00:00.000Z',
      submissionSeq: 20,
    });
    const shuffled = [batch[3]!, batch[0]!, newer, batch[4]!, batch[2]!, batch[1]!];
    expect(jobOrder(shuffled).map((j) => j.seriesDescription)).toEqual([
      'newer',
      'Series 1',
      'Series 2',
      'Series 3',
      'Series 4',
      'Series 5',
    ]);
  });
});
