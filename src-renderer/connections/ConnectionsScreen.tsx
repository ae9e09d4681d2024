import { useEffect, useState } from 'react';
import type { ConnectionTest, ProfileView } from '../../src-shared/contract';
import { errorText, type ErrorText } from '../bridge/api';
import { ErrorNote } from '../common/ui';
import { ScreenTitle } from '../shell/ScreenTitle';
import { useShell } from '../shell/screens';
import { useConnections } from './connections-store';
import { ProfileForm } from './ProfileForm';
import { EMPTY_FORM, fromProfile, fromTemplate } from './profile-form';
import './connections.css';

type Editing = { kind: 'new'; template: boolean } | { kind: 'edit'; id: string } | null;

/** The headline of a failed test, in the words a user looks for; the service's own words follow it. */
function failureTitle(code: ConnectionTest['code']): string {
  if (code === 'auth-failed') return 'Sign-in refused: the client id or client secret is not accepted.';
  if (code === 'network') return 'The service could not be reached.';
  if (code === 'service') return 'The service answered with an error.';
  return 'The connection test failed.';
}

function TestResult({ id, onEdit }: { id: string; onEdit?: (() => void) | undefined }) {
  const test = useConnections((s) => s.tests[id]);
  if (!test) return null;
  if (test.running)
    return (
      <p className="test-result" role="status" data-testid="test-result">
        Testing the connection…
      </p>
    );
  const r = test.result;
  if (!r) return null;
  return (
    <div
      className={`note ${r.ok ? 'note-ok' : 'note-error'} test-result`}
      role={r.ok ? 'status' : 'alert'}
      data-testid="test-result"
      data-ok={r.ok}
    >
      <div className="note-body">
        <p className="note-title">{r.ok ? 'Connection works.' : failureTitle(r.code)}</p>
        <p className="note-detail">{r.message}</p>
        {r.action && <p className="note-action">{r.action}</p>}
        {!r.ok && onEdit && (
          <div className="row note-buttons">
            <button type="button" onClick={onEdit}>
              Edit connection
            </button>
          </div>
        )}
      </div>
    </div>
  );
}

function ProfileItem({ p, onEdit }: { p: ProfileView; onEdit: () => void }) {
  const running = useConnections((s) => s.tests[p.id]?.running ?? false);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<ErrorText | null>(null);
  const store = useConnections.getState();
  const run = async (f: () => Promise<unknown>): Promise<void> => {
    setError(null);
    try {
      await f();
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <li className={`card profile${p.active ? ' profile-active' : ''}`} data-testid="profile-item">
      <div className="row">
        <h2 className="profile-name">{p.name}</h2>
        {p.active && <span className="badge ok">In use</span>}
        {p.kind === 'remote' && (
          <span className="badge" data-testid="secret-state">
            {p.secretStored ? 'Secret stored' : 'No secret stored'}
          </span>
        )}
      </div>
      <p className="muted profile-address">
        {p.kind === 'local-engine' ? 'Runs on this computer; works offline, no account needed.' : p.baseUrl}
      </p>
      <div className="row">
        {!p.active && (
          <button type="button" className="primary" onClick={() => void run(() => store.setActive(p.id))}>
            Use this connection
          </button>
        )}
        <button
          type="button"
          disabled={running}
          aria-label={`Test connection ${p.name}`}
          onClick={() => void store.test(p.id)}
        >
          {running ? 'Testing…' : 'Test connection'}
        </button>
        {p.kind === 'remote' && (
          <>
            <button type="button" onClick={onEdit} aria-label={`Edit ${p.name}`}>
              Edit
            </button>
            {!confirming ? (
              <button type="button" onClick={() => setConfirming(true)} aria-label={`Delete ${p.name}`}>
                Delete
              </button>
            ) : (
              <span className="row confirm" role="group" aria-label={`Delete ${p.name}?`}>
                <span>Delete it and its stored secret?</span>
                <button type="button" className="danger" onClick={() => void run(() => store.remove(p.id))}>
                  Delete
                </button>
                <button type="button" onClick={() => setConfirming(false)}>
                  Keep
                </button>
              </span>
            )}
          </>
        )}
      </div>
      <TestResult id={p.id} onEdit={p.kind === 'remote' ? onEdit : undefined} />
      {error && <ErrorNote error={error} onDismiss={() => setError(null)} />}
    </li>
  );
}

export function ConnectionsScreen() {
  const { profiles, loading, error } = useConnections();
  const editRequest = useShell((s) => s.editProfileId);
  // "Edit connection" on a failed job lands here with that connection's form open.
  const [editing, setEditing] = useState<Editing>(() =>
    editRequest ? { kind: 'edit', id: editRequest } : null,
  );
  useEffect(() => {
    if (editRequest) useShell.getState().clearEditRequest();
  }, [editRequest]);

  const closeForm = (): void => {
    setEditing(null);
    // The form leaves the page; the focus goes back to the top of the screen, not to nowhere.
    requestAnimationFrame(() => document.getElementById('screen-title')?.focus());
  };

  const editedProfile = editing?.kind === 'edit' ? profiles.find((p) => p.id === editing.id) : undefined;
  const form =
    editing?.kind === 'new' ? (
      <ProfileForm
        key={`new-${editing.template}`}
        initial={editing.template ? fromTemplate() : EMPTY_FORM}
        onDone={closeForm}
      />
    ) : editedProfile ? (
      <ProfileForm
        key={editedProfile.id}
        initial={fromProfile(editedProfile)}
        existing={editedProfile}
        onDone={closeForm}
      />
    ) : null;

  return (
    <section className="connections-screen" aria-labelledby="screen-title">
      <div className="screen-head">
        <ScreenTitle>Connections</ScreenTitle>
        {!form && (
          <div className="row push-right">
            <button
              type="button"
              className="primary"
              onClick={() => setEditing({ kind: 'new', template: true })}
            >
              Add Relu EU 24.06…
            </button>
            <button type="button" onClick={() => setEditing({ kind: 'new', template: false })}>
              Add other service…
            </button>
          </div>
        )}
      </div>
      <p className="muted">
        Where scans are sent for segmentation. The local engine runs on this computer and needs no account; a
        remote service needs the client id and secret its operator gives you.
      </p>
      {error && <ErrorNote error={error} />}
      {loading && profiles.length === 0 && <p aria-live="polite">Loading connections…</p>}
      {form}
      <ul aria-label="Connection profiles" className="plain-list">
        {profiles.map((p) => (
          <ProfileItem key={p.id} p={p} onEdit={() => setEditing({ kind: 'edit', id: p.id })} />
        ))}
      </ul>
    </section>
  );
}
