import { useEffect, useState } from 'react';
import { isTerminal } from '../../src-shared/job-states';
import { useConnections } from '../connections/connections-store';
import { ErrorNote } from '../common/ui';
import { ScreenTitle } from '../shell/ScreenTitle';
import { useShell } from '../shell/screens';
import { useApp } from '../app/app-store';
import { summarizeJobs } from './job-format';
import { BatchRow } from './BatchRow';
import { JobRow } from './JobRow';
import { useJobs } from './jobs-store';
import {
  groupByBatch,
  matchesFilter,
  STATE_FILTERS,
  summarizeBatch,
  type StateFilter,
} from './batch-summary';
import './batches.css';
import './jobs.css';

const FILTER_LABELS: Record<StateFilter, string> = {
  all: 'All',
  waiting: 'Waiting',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
  canceled: 'Canceled',
};

/** Ticks once a second while something runs, so elapsed times move without a render per job event. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

/**
 * Keeps the marks on meshes that are no longer as their jobs saved them fresh: asked when the screen
 * shows, when jobs end, and when the user comes back to the app (from the file manager, say).
 */
function useOnDiskChecks(ended: number): void {
  useEffect(() => {
    const check = (): void => void useJobs.getState().checkOnDisk();
    check();
    const onVisible = (): void => {
      if (document.visibilityState === 'visible') check();
    };
    window.addEventListener('focus', check);
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      window.removeEventListener('focus', check);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [ended]);
}

export function JobsScreen() {
  const jobs = useJobs((s) => s.jobs);
  const paused = useJobs((s) => s.paused);
  const loaded = useJobs((s) => s.loaded);
  const error = useJobs((s) => s.error);
  const profiles = useConnections((s) => s.profiles);
  const outputDir = useApp((s) => s.settings?.outputDir);
  const summary = summarizeJobs(jobs);
  const now = useNow(summary.active + summary.waiting > 0);
  useOnDiskChecks(jobs.filter((j) => isTerminal(j.state) && j.outputs.length > 0).length);
  const localIds = new Set(profiles.filter((p) => p.kind === 'local-engine').map((p) => p.id));
  const [filter, setFilter] = useState<StateFilter>('all');
  const groups = groupByBatch(jobs);
  // Batches are numbered oldest first, so a batch keeps its number as new ones arrive on top.
  const batchNumber = new Map(
    groups
      .filter((g) => g.jobs.length > 1)
      .reverse()
      .map((g, i) => [g.batchId, i + 1]),
  );
  const countOf = (f: StateFilter) => jobs.filter((j) => matchesFilter(j, f)).length;
  const row = (j: (typeof jobs)[number]) => (
    <JobRow key={j.id} job={j} now={isTerminal(j.state) ? 0 : now} local={localIds.has(j.profileId)} />
  );

  return (
    <section className="jobs-screen" aria-labelledby="screen-title">
      <div className="screen-head">
        <ScreenTitle>Jobs</ScreenTitle>
        {jobs.length > 0 && (
          <p className="muted" data-testid="jobs-summary" aria-live="polite">
            {summary.active} running{summary.waiting > 0 ? ` · ${summary.waiting} waiting` : ''} ·{' '}
            {summary.done} done · {summary.failed} failed
          </p>
        )}
        {(jobs.length > 0 || paused) && (
          <div className="row push-right">
            <button
              type="button"
              aria-pressed={paused}
              onClick={() => void useJobs.getState().setPaused(!paused)}
              title="Jobs already sent keep running on the service; no new uploads start while paused."
            >
              {paused ? 'Resume queue' : 'Pause queue'}
            </button>
          </div>
        )}
      </div>
      {outputDir && (
        <p className="muted output-dir">
          Meshes are saved in <code>{outputDir}</code>
        </p>
      )}
      {paused && (
        <p className="note note-info" role="status">
          The queue is paused: waiting jobs do not start until you resume it. Jobs already under way go on,
          and their clocks keep running.
        </p>
      )}
      {error && <ErrorNote error={error} />}
      {loaded && jobs.length === 0 && (
        <div className="empty" data-testid="empty-jobs">
          <p>
            No jobs yet. Add a scan, choose what to segment and submit it: it shows up here while it runs.
          </p>
          <button type="button" className="primary" onClick={() => useShell.getState().go('scans')}>
            Go to Scans
          </button>
        </div>
      )}
      {jobs.length > 0 && (
        <fieldset className="job-filter" data-testid="job-filter">
          <legend>Show</legend>
          {STATE_FILTERS.map((f) => (
            <button key={f} type="button" aria-pressed={filter === f} onClick={() => setFilter(f)}>
              {FILTER_LABELS[f]} ({countOf(f)})
            </button>
          ))}
        </fieldset>
      )}
      {jobs.length > 0 && (
        <ul className="jobs" aria-label="Jobs">
          {groups.map((g) => {
            const shown = g.jobs.filter((j) => matchesFilter(j, filter));
            if (shown.length === 0) return null;
            const number = batchNumber.get(g.batchId);
            if (number === undefined) return shown.map(row);
            return (
              <li key={g.batchId} className="batch" data-testid="batch">
                <BatchRow batch={summarizeBatch(g.batchId, g.jobs, now)} index={number} />
                <ul className="jobs batch-jobs" aria-label={`Jobs of batch ${number}`}>
                  {shown.map(row)}
                </ul>
              </li>
            );
          })}
        </ul>
      )}
      {jobs.length > 0 && filter !== 'all' && countOf(filter) === 0 && (
        <p className="muted">No {FILTER_LABELS[filter].toLowerCase()} jobs.</p>
      )}
    </section>
  );
}
