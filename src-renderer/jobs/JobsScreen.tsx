import { useEffect, useState } from 'react';
import { isTerminal } from '../../src-shared/jobs';
import { useConnections } from '../connections/connections-store';
import { ErrorNote } from '../common/ui';
import { ScreenTitle } from '../shell/ScreenTitle';
import { useShell } from '../shell/screens';
import { useApp } from '../app/app-store';
import { summarizeJobs } from './job-format';
import { JobRow } from './JobRow';
import { useJobs } from './jobs-store';

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

export function JobsScreen() {
  const jobs = useJobs((s) => s.jobs);
  const paused = useJobs((s) => s.paused);
  const loaded = useJobs((s) => s.loaded);
  const error = useJobs((s) => s.error);
  const profiles = useConnections((s) => s.profiles);
  const outputDir = useApp((s) => s.settings?.outputDir);
  const summary = summarizeJobs(jobs);
  const now = useNow(summary.active > 0);
  const localIds = new Set(profiles.filter((p) => p.kind === 'local-engine').map((p) => p.id));

  return (
    <section className="jobs-screen" aria-labelledby="screen-title">
      <div className="screen-head">
        <ScreenTitle>Jobs</ScreenTitle>
        {jobs.length > 0 && (
          <p className="muted" data-testid="jobs-summary" aria-live="polite">
            {summary.active} running · {summary.done} done · {summary.failed} failed
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
          The queue is paused: waiting jobs do not start until you resume it.
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
        <ul className="jobs" aria-label="Jobs">
          {jobs.map((j) => (
            <JobRow
              key={j.id}
              job={j}
              now={isTerminal(j.state) ? 0 : now}
              local={localIds.has(j.profileId)}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
