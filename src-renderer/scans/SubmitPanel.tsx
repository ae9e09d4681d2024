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
import { isUsable } from '../../src-shared/series-usable';
import { useScans } from './scans-store';
import './submit-panel.css';

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
  const [acceptBurnedIn, setAcceptBurnedIn] = useState(false);

  const profile = activeProfile(profiles);
  const caps = profile ? (capabilities[profile.id] ?? null) : null;
  const connectionName = profile?.name ?? 'The connection';
  const chosenSeries = series.filter((s) => selected.includes(s.id) && isUsable(s));
  const plan = planMeshes(names, mode, extension);
  const refusals = refusedChoices(names, caps, connectionName);
  const usableCount = series.filter(isUsable).length;
  // De-identification cannot clean text burned into the images: the user accepts it or leaves the scan out.
  const burnedIn = chosenSeries.filter((s) => s.burnedInAnnotation && (deidentify[s.id] ?? true));

  const blockers: string[] = [];
  if (series.length === 0) blockers.push('Add a scan first.');
  else if (chosenSeries.length === 0) blockers.push('Tick at least one scan.');
  if ('problem' in plan) blockers.push(plan.problem);
  if (profile?.kind === 'remote' && !profile.secretStored)
    blockers.push(`${profile.name} has no client secret stored; add it under Connections.`);
  if (burnedIn.length > 0 && !acceptBurnedIn)
    blockers.push(
      'A ticked scan may show patient data in its images: look at them, then accept below or untick the scan.',
    );

  const blocked = blockers.length > 0 || refusals.length > 0;

  const submit = async (): Promise<void> => {
    if (blocked || !('meshes' in plan)) return;
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
        const jobs = await useJobs.getState().submit({
          seriesIds,
          meshes: plan.meshes,
          deidentify: deid,
          ...(deid && burnedIn.length > 0 && acceptBurnedIn ? { acceptBurnedIn: true } : {}),
        });
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

      {/* What keeps Submit disabled is said inside the bar, beside the button, where the eye is. */}
      <div className="submit-row" data-testid="submit-bar">
        {blocked && (
          <div id="submit-why" className="submit-blockers" data-testid="submit-blockers">
            {blockers.map((b) => (
              <p key={b} className="blocker">
                {b}
              </p>
            ))}
            {refusals.length > 0 && (
              <div className="blocker-refusals" data-testid="refusals">
                <p className="blocker">{connectionName} cannot make:</p>
                <ul>
                  {refusals.map((r) => (
                    <li key={r.name}>
                      <strong>{structureLabel(r.name)}</strong>: {r.reason}
                    </li>
                  ))}
                </ul>
                <div className="row">
                  <button type="button" className="small" onClick={removeRefused}>
                    Remove {refusals.length === 1 ? 'it' : 'them'}
                  </button>
                  <button
                    type="button"
                    className="small"
                    onClick={() => useShell.getState().go('connections')}
                  >
                    Use another connection
                  </button>
                </div>
              </div>
            )}
          </div>
        )}
        {burnedIn.length > 0 && (
          <label className="burned-in-accept" data-testid="accept-burned-in">
            <input
              type="checkbox"
              checked={acceptBurnedIn}
              onChange={(e) => setAcceptBurnedIn(e.target.checked)}
            />{' '}
            Send de-identified anyway: {burnedIn.map((s) => s.seriesDescription || s.modality).join(', ')} may
            show patient data in the images ({burnedIn[0]!.burnedInAnnotation}), which de-identification
            cannot remove.
          </label>
        )}
        {error && <ErrorNote error={error} onDismiss={() => setError(null)} testId="submit-error" />}
        <button
          type="button"
          className="primary big"
          disabled={blocked || sending}
          aria-describedby={blocked ? 'submit-why' : 'submit-what'}
          onClick={() => void submit()}
          data-testid="submit"
        >
          {sending
            ? 'Submitting…'
            : chosenSeries.length > 1
              ? `Submit ${chosenSeries.length} scans`
              : 'Submit scan'}
        </button>
        {!blocked && 'meshes' in plan && (
          <p id="submit-what" className="hint">
            {`${plural(plan.meshes.length, 'mesh', 'meshes')} per scan, ${extension.slice(1).toUpperCase()}.`}
          </p>
        )}
      </div>
    </div>
  );
}
