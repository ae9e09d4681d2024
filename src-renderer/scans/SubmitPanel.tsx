import { useState } from 'react';
import { errorText, type ErrorText } from '../bridge/api';
import { activeProfile, useConnections } from '../connections/connections-store';
import { useJobs } from '../jobs/jobs-store';
import { announce } from '../shell/announce';
import { useShell } from '../shell/screens';
import { StructurePicker } from '../structures/StructurePicker';
import { useSelection } from '../structures/selection-store';
import { planMeshes, refusedChoices, structureLabel } from '../structures/structure-selection';
import { ErrorNote } from '../common/ui';
import { plural } from '../common/format';
import { isUsable, useScans } from './scans-store';

/**
 * The side panel that stays beside the scans: which scans go, where, what to make of them, and the
 * one button that sends them. Everything that would make the submission fail is said before it is sent.
 */
export function SubmitPanel() {
  const series = useScans((s) => s.series);
  const selected = useScans((s) => s.selected);
  const deidentify = useScans((s) => s.deidentify);
  const names = useSelection((s) => s.names);
  const mode = useSelection((s) => s.mode);
  const extension = useSelection((s) => s.extension);
  const profiles = useConnections((s) => s.profiles);
  const capabilities = useConnections((s) => s.capabilities);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<ErrorText | null>(null);

  const profile = activeProfile(profiles);
  const caps = profile ? (capabilities[profile.id] ?? null) : null;
  const connectionName = profile?.name ?? 'The connection';
  const chosenSeries = series.filter((s) => selected.includes(s.id) && isUsable(s));
  const plan = planMeshes(names, mode, extension);
  const refusals = refusedChoices(names, caps, connectionName);
  const usableCount = series.filter(isUsable).length;

  const blockers: string[] = [];
  if (series.length === 0) blockers.push('Add a scan first.');
  else if (chosenSeries.length === 0) blockers.push('Tick at least one scan.');
  if ('problem' in plan) blockers.push(plan.problem);
  if (refusals.length > 0) blockers.push(`${connectionName} cannot make everything you chose (see above).`);
  if (profile?.kind === 'remote' && !profile.secretStored)
    blockers.push(`${profile.name} has no client secret stored; add it under Connections.`);

  const submit = async (): Promise<void> => {
    if (blockers.length > 0 || !('meshes' in plan)) return;
    setSending(true);
    setError(null);
    try {
      // One request per de-identification choice: the request carries one switch for all its scans.
      const groups = new Map<boolean, string[]>();
      for (const s of chosenSeries) {
        const d = deidentify[s.id] ?? true;
        groups.set(d, [...(groups.get(d) ?? []), s.id]);
      }
      let count = 0;
      for (const [deid, seriesIds] of groups) {
        const jobs = await useJobs.getState().submit({ seriesIds, meshes: plan.meshes, deidentify: deid });
        count += jobs.length;
      }
      announce(`${plural(count, 'job')} submitted to ${connectionName}.`);
      useScans.getState().setSelected([]);
      useShell.getState().go('jobs');
    } catch (e) {
      setError(errorText(e));
    } finally {
      setSending(false);
    }
  };

  const removeRefused = (): void => {
    const refused = new Set(refusals.map((r) => r.name));
    useSelection.setState((s) => ({ names: s.names.filter((n) => !refused.has(n)) }));
  };

  return (
    <div className="submit-panel">
      <section className="panel-block" aria-labelledby="send-title">
        <h2 id="send-title">Send</h2>
        <p data-testid="selected-count">
          {series.length === 0
            ? 'No scans yet.'
            : `${plural(chosenSeries.length, 'scan')} of ${usableCount} ticked.`}
        </p>
        {usableCount > 1 && (
          <div className="row">
            <button
              type="button"
              className="small"
              onClick={() => useScans.getState().setSelected(series.filter(isUsable).map((s) => s.id))}
            >
              Tick all
            </button>
            <button type="button" className="small" onClick={() => useScans.getState().setSelected([])}>
              Untick all
            </button>
          </div>
        )}
        <p className="connection-line">
          To: <strong data-testid="active-connection">{profile?.name ?? '…'}</strong>{' '}
          <button type="button" className="link-button" onClick={() => useShell.getState().go('connections')}>
            Change
          </button>
        </p>
      </section>

      <StructurePicker caps={caps} connectionName={connectionName} />

      {refusals.length > 0 && (
        <div className="note note-warning" role="alert" data-testid="refusals">
          <div className="note-body">
            <p className="note-title">{connectionName} cannot make:</p>
            <ul>
              {refusals.map((r) => (
                <li key={r.name}>
                  <strong>{structureLabel(r.name)}</strong> — {r.reason}
                </li>
              ))}
            </ul>
            <div className="row note-buttons">
              <button type="button" onClick={removeRefused}>
                Remove {refusals.length === 1 ? 'it' : 'them'}
              </button>
              <button type="button" onClick={() => useShell.getState().go('connections')}>
                Use another connection
              </button>
            </div>
          </div>
        </div>
      )}

      {error && <ErrorNote error={error} onDismiss={() => setError(null)} testId="submit-error" />}

      <div className="submit-row">
        <button
          type="button"
          className="primary big"
          disabled={blockers.length > 0 || sending}
          aria-describedby="submit-why"
          onClick={() => void submit()}
          data-testid="submit"
        >
          {sending
            ? 'Submitting…'
            : chosenSeries.length > 1
              ? `Submit ${chosenSeries.length} scans`
              : 'Submit scan'}
        </button>
        <p id="submit-why" className="hint">
          {blockers[0] ??
            ('meshes' in plan
              ? `${plural(plan.meshes.length, 'mesh', 'meshes')} per scan, ${extension.slice(1).toUpperCase()}.`
              : '')}
        </p>
      </div>
    </div>
  );
}
