import { useShell, type Screen } from './screens';
import { ConnectionsScreen } from '../connections/ConnectionsScreen';
import { transport } from '../bridge/api';

const NAV: { id: Screen; label: string }[] = [
  { id: 'scans', label: 'Scans' },
  { id: 'jobs', label: 'Jobs' },
  { id: 'viewer', label: 'Viewer' },
  { id: 'connections', label: 'Connections' },
];

export function App() {
  const { screen, go } = useShell();
  return (
    <div className="app">
      <nav className="nav" aria-label="Main">
        <div className="brand">
          <img src="./icon.svg" alt="" />
          scan2mesh
        </div>
        {NAV.map((n) => (
          <button key={n.id} aria-current={screen === n.id ? 'page' : undefined} onClick={() => go(n.id)}>
            {n.label}
          </button>
        ))}
        <div className="footer">{transport === 'web' ? 'Web mode' : 'Desktop'}</div>
      </nav>
      <main>
        {screen === 'connections' && <ConnectionsScreen />}
        {screen !== 'connections' && (
          <section aria-labelledby="screen-title">
            <h1 id="screen-title">{NAV.find((n) => n.id === screen)?.label}</h1>
          </section>
        )}
      </main>
    </div>
  );
}
