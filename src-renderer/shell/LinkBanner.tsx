import { useEffect } from 'react';
import { useLink } from '../bridge/link-state';
import { useConnections } from '../connections/connections-store';
import { useJobs } from '../jobs/jobs-store';

const clock = (ms: number): string =>
  new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/**
 * Says, above every screen, when this page no longer hears the app (web mode): what it shows is then
 * as it was at that moment. When the link comes back, the jobs and connections are read again.
 */
export function LinkBanner() {
  const { state, since, returns } = useLink();
  useEffect(() => {
    if (returns === 0) return;
    void useJobs.getState().load();
    void useConnections.getState().load();
  }, [returns]);
  if (state === 'live' || since === null) return null;
  if (state === 'ended')
    return (
      <div className="note note-error link-banner" role="alert" data-testid="link-banner">
        This page lost its session with scan2mesh at {clock(since)}: the app was stopped and started again,
        and a new start gives a new address. What this page shows is as it was then. Open the address{' '}
        <code>scan2mesh web</code> printed when it started; your jobs are kept.
      </div>
    );
  return (
    <div className="note note-warning link-banner" role="alert" data-testid="link-banner">
      scan2mesh has not answered since {clock(since)}; this page tries again every few seconds. What it shows
      is as it was then. Check that <code>scan2mesh web</code> is still running, or start it again.
    </div>
  );
}
