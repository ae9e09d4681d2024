import { useEffect } from 'react';
import { useConnections } from './connections-store';
import { onEvent } from '../bridge/api';

export function ConnectionsScreen() {
  const { profiles, loading, error, load } = useConnections();
  useEffect(() => {
    void load();
    return onEvent('profiles.changed', () => void load());
  }, [load]);

  return (
    <section aria-labelledby="connections-title">
      <h1 id="connections-title">Connections</h1>
      <p className="muted">
        Where scans are sent for segmentation. The local engine runs on this computer and needs no account.
      </p>
      {error && (
        <p role="alert" className="error">
          {error.message} {error.action}
        </p>
      )}
      {loading && profiles.length === 0 && <p aria-live="polite">Loading connections…</p>}
      <ul aria-label="Connection profiles" style={{ listStyle: 'none', padding: 0 }}>
        {profiles.map((p) => (
          <li key={p.id} className="card" data-testid="profile-item">
            <div className="row">
              <h2 style={{ margin: 0 }}>{p.name}</h2>
              {p.active && <span className="badge ok">In use</span>}
              {p.kind === 'remote' && (
                <span className="badge">{p.secretStored ? 'Secret stored' : 'No secret stored'}</span>
              )}
            </div>
            <p className="muted" style={{ margin: '6px 0 0' }}>
              {p.kind === 'local-engine' ? 'Runs on this computer; works offline.' : p.baseUrl}
            </p>
          </li>
        ))}
      </ul>
    </section>
  );
}
