import { lazy, Suspense, useCallback, useEffect } from 'react';
import { useShell, type Screen } from './screens';
import { useAnnounce } from './announce';
import { useWindowDrop } from './useWindowDrop';
import { useConnections } from '../connections/connections-store';
import { useJobs } from '../jobs/jobs-store';
import { summarizeJobs } from '../jobs/job-format';
import { ScansScreen } from '../scans/ScansScreen';
import { useScans } from '../scans/scans-store';
import { useApp } from '../app/app-store';
import { onEvent, transport } from '../bridge/api';
import type { DroppedItem } from '../bridge/dropped-item';
import { lazyScreen, preloadWhenIdle } from './lazy-screen';
import { LinkBanner } from './LinkBanner';
import './shell.css';

// The viewer (three.js, about two thirds of the renderer's code) loads when it is first opened, so
// the first page of the app has no long parse-and-compile task for a screen the user has not asked for.
const ViewerHost = lazy(() => import('./ViewerHost').then((m) => ({ default: m.ViewerHost })));
// The other screens are small but not needed for the first page: loaded after it, while idle.
const jobsScreen = lazyScreen(() => import('../jobs/JobsScreen').then((m) => m.JobsScreen));
const connectionsScreen = lazyScreen(() =>
  import('../connections/ConnectionsScreen').then((m) => m.ConnectionsScreen),
);
const settingsScreen = lazyScreen(() => import('../settings/SettingsScreen').then((m) => m.SettingsScreen));
const JobsScreen = jobsScreen.Screen;
const ConnectionsScreen = connectionsScreen.Screen;
const SettingsScreen = settingsScreen.Screen;

const NAV: { id: Screen; label: string }[] = [
  { id: 'scans', label: 'Scans' },
  { id: 'jobs', label: 'Jobs' },
  { id: 'viewer', label: 'Viewer' },
  { id: 'connections', label: 'Connections' },
  { id: 'settings', label: 'Settings' },
];

/** A count beside a screen's name in the navigation, read as ", 3 running". */
function Count({ n, label, tone }: { n: number; label: string; tone?: 'active' | 'danger' }) {
  return (
    <span className={tone ? `nav-count ${tone}` : 'nav-count'}>
      <span className="sr-only">, </span>
      {n}
      <span className="sr-only"> {label}</span>
    </span>
  );
}

function NavCount({ screen }: { screen: Screen }) {
  const scans = useScans((s) => s.series.length);
  const all = useJobs((s) => s.jobs);
  const jobs = summarizeJobs(all);
  if (screen === 'scans' && scans > 0) return <Count n={scans} label="series" />;
  if (screen === 'jobs' && jobs.active > 0) return <Count n={jobs.active} label="running" tone="active" />;
  if (screen === 'jobs' && jobs.waiting > 0 && jobs.failed === 0)
    return <Count n={jobs.waiting} label="waiting" />;
  if (screen === 'jobs' && jobs.failed > 0) return <Count n={jobs.failed} label="failed" tone="danger" />;
  return null;
}

/** Loads what every screen needs once, and keeps it live through the contract's events. */
function useAppData(): void {
  useEffect(() => {
    void useApp.getState().load();
    const connections = useConnections.getState();
    const jobs = useJobs.getState();
    void connections.load();
    void jobs.load();
    void useScans.getState().restore();
    preloadWhenIdle([jobsScreen, connectionsScreen, settingsScreen]);
    const offProfiles = onEvent('profiles.changed', () => void useConnections.getState().load());
    const offJobs = onEvent('jobs.changed', ({ jobs: changed, paused }) =>
      useJobs.getState().merge(changed, paused),
    );
    return () => {
      offProfiles();
      offJobs();
    };
  }, []);
}

export function App() {
  const { screen, go } = useShell();
  const announcement = useAnnounce((s) => s.message);
  const seq = useAnnounce((s) => s.seq);
  useAppData();

  const onItems = useCallback(
    (items: DroppedItem[]) => {
      go('scans');
      void useScans.getState().addItems(items);
    },
    [go],
  );
  // On the viewer, dropped files are meshes to look at: the viewer takes them itself.
  const { over, handlers } = useWindowDrop(screen !== 'viewer', onItems);

  return (
    <div className="app" {...handlers} data-testid="app">
      <nav className="nav" aria-label="Main">
        <div className="brand">
          <img src="./icon.svg" alt="" />
          scan2mesh
        </div>
        {NAV.map((n) => (
          <button
            key={n.id}
            type="button"
            aria-current={screen === n.id ? 'page' : undefined}
            onClick={() => go(n.id)}
          >
            <span>{n.label}</span>
            <NavCount screen={n.id} />
          </button>
        ))}
        <div className="footer">{transport === 'web' ? 'Web mode' : 'Desktop'}</div>
      </nav>
      <main className={screen === 'viewer' ? 'main-viewer' : undefined}>
        {transport === 'web' && <LinkBanner />}
        {screen === 'scans' && <ScansScreen />}
        <Suspense fallback={<p className="muted">Loading…</p>}>
          {screen === 'jobs' && <JobsScreen />}
          {screen === 'connections' && <ConnectionsScreen />}
          {screen === 'settings' && <SettingsScreen />}
        </Suspense>
        {screen === 'viewer' && (
          <Suspense fallback={<p className="muted">Loading the viewer…</p>}>
            <ViewerHost />
          </Suspense>
        )}
      </main>
      {over && (
        <div className="drop-overlay" aria-hidden="true">
          <div className="drop-overlay-box">Drop to add scans</div>
        </div>
      )}
      <div className="sr-only" role="status" aria-live="polite">
        {/* A zero-width space alternates so the same words announced twice are still a change. */}
        {announcement}
        {seq % 2 ? '\u200b' : ''}
      </div>
    </div>
  );
}
