import { memo } from 'react';
import { JOB_STATE_LABELS, isTerminal } from '../../src-shared/job-states';
import { NOT_AS_SAVED, NOT_AS_SAVED_ACTION, type JobView } from '../../src-shared/jobs';
import { baseName, formatBytes, formatDuration } from '../common/format';
import { ErrorNote, ProgressBar } from '../common/ui';
import { useShell } from '../shell/screens';
import {
  describeMeshes,
  elapsedMs,
  errorActions,
  progressFraction,
  progressText,
  stateTone,
} from './job-format';
import { useJobs } from './jobs-store';

/** A time as people read it: the time of day, with the date when it is not today. */
function timeOfDay(iso: string): string {
  const at = new Date(iso);
  const time = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return at.toDateString() === new Date().toDateString() ? time : `${at.toLocaleDateString()} ${time}`;
}

/** One job: what it is, where it stands, how long it has taken, and what can be done with it. */
export const JobRow = memo(function JobRow({
  job,
  now,
  local,
}: {
  job: JobView;
  now: number;
  local: boolean;
}) {
  const actionError = useJobs((s) => s.actionErrors[job.id]);
  const onDisk = useJobs((s) => s.onDisk[job.id]);
  const { act, reveal } = useJobs.getState();
  const shell = useShell.getState();
  const fraction = progressFraction(job);
  const terminal = isTerminal(job.state);
  const label = `${job.scanName}${job.seriesDescription ? `, ${job.seriesDescription}` : ''}`;
  const transfer = job.state === 'uploading' || job.state === 'downloading';
  const bytesText =
    job.progress.bytesTotal !== undefined
      ? `${formatBytes(job.progress.bytesDone ?? 0)} of ${formatBytes(job.progress.bytesTotal)}`
      : undefined;
  const stage = progressText(job);

  return (
    <li
      className={`job tone-${stateTone(job.state)}`}
      data-testid="job-row"
      data-state={job.state}
      aria-label={label}
    >
      <div className="job-head">
        <div className="job-main">
          <div className="job-title">
            <strong title={job.source ? `From ${job.source}` : undefined}>{job.scanName}</strong>
            {job.seriesDescription && <span className="muted"> · {job.seriesDescription}</span>}
          </div>
          <div className="muted job-sub">
            {describeMeshes(job)} · {job.profileName}
            {job.deidentify ? ' · de-identified' : ''}
            {/* When a result was made, for telling one attempt or one day's job from another. */}
            {` · sent ${timeOfDay(job.createdAt)}`}
            {job.finishedAt && terminal ? ` · ended ${timeOfDay(job.finishedAt)}` : ''}
          </div>
        </div>
        <div className="job-state">
          <span className={`badge state-${stateTone(job.state)}`} data-testid="job-state">
            {JOB_STATE_LABELS[job.state]}
          </span>
          <span className="job-elapsed" title="Elapsed time">
            <span className="sr-only">Elapsed </span>
            {formatDuration(elapsedMs(job, now))}
          </span>
        </div>
        <div className="job-actions">
          {isTerminal(job.state) && job.outputs.length > 0 && (
            <button
              type="button"
              className="primary"
              onClick={() => shell.openInViewer(job.id)}
              aria-label={`Open ${label} in viewer`}
            >
              Open in viewer
            </button>
          )}
          {job.state === 'queued' && (
            <button
              type="button"
              onClick={() => void act(job.id, 'prioritize')}
              aria-label={`Run ${label} next`}
            >
              Run next
            </button>
          )}
          {!terminal && (
            <button type="button" onClick={() => void act(job.id, 'cancel')} aria-label={`Cancel ${label}`}>
              Cancel
            </button>
          )}
          {job.state === 'canceled' && (
            <button type="button" onClick={() => void act(job.id, 'retry')}>
              Start again
            </button>
          )}
          {terminal && (
            <button
              type="button"
              onClick={() => void act(job.id, 'remove')}
              aria-label={`Remove ${label} from the list`}
            >
              Remove
            </button>
          )}
        </div>
      </div>

      {!terminal && !job.trouble && (
        <div className="job-progress">
          <ProgressBar
            value={transfer || fraction !== null ? fraction : null}
            label={`${JOB_STATE_LABELS[job.state]}: ${label}`}
            {...(bytesText ? { text: bytesText } : {})}
          />
          <span className="muted small-text" data-testid="job-stage">
            {stage}
            {transfer && bytesText ? ` · ${bytesText}` : ''}
          </span>
        </div>
      )}

      {job.trouble && !terminal && (
        <div className="note note-warning" role="status" data-testid="job-trouble">
          <div className="note-body">
            <p className="note-title">{job.trouble.message}</p>
            <p className="note-action">
              {job.trouble.action ? `${job.trouble.action} ` : ''}
              {job.trouble.retryAt
                ? `The app tries again at ${new Date(job.trouble.retryAt).toLocaleTimeString()}.`
                : 'The app keeps trying.'}
            </p>
            {!local && (
              <div className="row note-buttons">
                <button type="button" onClick={() => shell.editConnection(job.profileId)}>
                  Edit connection
                </button>
              </div>
            )}
          </div>
        </div>
      )}

      {isTerminal(job.state) && job.outputs.length > 0 && (
        <ul className="outputs" aria-label={`Files of ${label}`}>
          {job.outputs.map((o, i) => {
            const disk = onDisk?.[i];
            return (
              <li key={o.path} data-on-disk={disk ?? 'unknown'}>
                <span className="output-name">{baseName(o.path)}</span>
                <span className="muted">{formatBytes(o.bytes)}</span>
                {disk && disk !== 'saved' && (
                  <span
                    className="badge state-warning"
                    data-testid="output-not-as-saved"
                    title={NOT_AS_SAVED_ACTION[disk]}
                  >
                    {NOT_AS_SAVED[disk]}
                  </span>
                )}
                {disk !== 'missing' && (
                  <button
                    type="button"
                    className="link-button"
                    aria-label={`Show ${baseName(o.path)} in its folder`}
                    onClick={() => void reveal(job.id, i)}
                  >
                    Show in folder
                  </button>
                )}
                {o.note && (
                  <details className="output-note">
                    <summary>How it was made</summary>
                    <p>{o.note}</p>
                  </details>
                )}
              </li>
            );
          })}
        </ul>
      )}

      {job.error && job.state === 'failed' && (
        <ErrorNote error={job.error} testId="job-error">
          {errorActions(job, local).map((a) => (
            <button
              key={a.kind}
              type="button"
              className={a.kind === 'retry' ? 'primary' : undefined}
              onClick={() => {
                if (a.kind === 'retry') void act(job.id, 'retry');
                else if (a.kind === 'resubmit') void act(job.id, 'resubmit');
                else if (a.kind === 'edit-connection') shell.editConnection(job.profileId);
                else if (a.kind === 'rescan') shell.go('scans');
                else void reveal(job.id, 0);
              }}
            >
              {a.label}
            </button>
          ))}
        </ErrorNote>
      )}
      {actionError && <ErrorNote error={actionError} />}
    </li>
  );
});
