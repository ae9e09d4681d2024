import { describe, expect, it } from 'vitest';
import type { JobView } from '../../src-shared/jobs.js';
import { toReport } from './job-report.js';

/** The fields of a job the report reads; the rest of a JobView does not matter here. */
function view(state: JobView['state'], error?: JobView['error']): JobView {
  return {
    scanName: 'phantom',
    seriesDescription: 'BONE',
    remoteJobId: 'r-1',
    state,
    outputs: [],
    ...(error ? { error } : {}),
  } as unknown as JobView;
}

describe('toReport', () => {
  it('reports a job interrupted before it ended as stopped, with how to finish it, not as failed', () => {
    const r = toReport(view('processing'));
    expect(r.state).toBe('stopped');
    expect(r.error).toEqual({
      code: 'canceled',
      message: 'Stopped while processing; `scan2mesh resume` finishes it.',
    });
  });

  it('reports ended jobs as they ended', () => {
    expect(toReport(view('done'))).toMatchObject({ state: 'done', error: null });
    expect(toReport(view('canceled')).state).toBe('canceled');
    const failed = toReport(view('failed', { code: 'job-failed', message: 'no bone' }));
    expect(failed).toMatchObject({ state: 'failed', error: { code: 'job-failed', message: 'no bone' } });
  });
});
