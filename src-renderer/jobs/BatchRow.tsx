import { formatDuration } from '../common/format';
import { ErrorNote, ProgressBar } from '../common/ui';
import type { BatchSummary, StateGroup } from './batch-summary';
import { useJobs } from './jobs-store';
import { retriable } from './job-format';
import { useConnections } from '../connections/connections-store';

const COUNT_LABELS: [StateGroup, string][] = [
  ['running', 'running'],
  ['waiting', 'waiting'],
  ['done', 'done'],
  ['failed', 'failed'],
  ['canceled', 'canceled'],
];

/** The row of one submit of several scans: how far the lot is, how long it takes, where it goes. */
export function BatchRow({ batch, index }: { batch: BatchSummary; index: number }) {
  const actionError = useJobs((s) => s.actionErrors[`batch:${batch.batchId}`]);
  const { actBatch, reveal } = useJobs.getState();
  const n = batch.jobs.length;
  const name = `Batch ${index} (${n} scans)`;
  const percent = Math.round(batch.progress * 100);
  const counts = COUNT_LABELS.filter(([g]) => batch.counts[g] > 0)
    .map(([g, label]) => `${batch.counts[g]} ${label}`)
    .join(' · ');
  const profiles = useConnections((s) => s.profiles);
  const local = new Set(profiles.filter((p) => p.kind === 'local-engine').map((p) => p.id));
  // Only what a retry may change: a refusal of the local engine would come again, alike.
  const retries = retriable(batch.jobs, local);
  const started = new Date(Math.min(...batch.jobs.map((j) => Date.parse(j.createdAt))));

  return (
    <div className="batch-row" data-testid="batch-row" data-finished={batch.finished} aria-label={name}>
      <div className="batch-head">
        <div className="batch-main">
          <strong>{name}</strong>
          <span className="muted"> · sent {started.toLocaleTimeString()}</span>
          <div className="muted batch-counts" data-testid="batch-counts">
            {counts}
          </div>
        </div>
        <div className="batch-times" data-testid="batch-times">
          <span title="Elapsed time">
            <span className="sr-only">Elapsed </span>
            {formatDuration(batch.elapsedMs)}
          </span>
          {batch.etaMs !== null && (
            <span className="muted" title="Estimated from the pace so far">
              about {formatDuration(batch.etaMs)} left
            </span>
          )}
        </div>
        <div className="batch-actions">
          {!batch.finished &&
            (batch.paused ? (
              <button
                type="button"
                className="primary"
                onClick={() => void actBatch(batch.batchId, 'resume')}
              >
                Resume batch
              </button>
            ) : (
              <button type="button" onClick={() => void actBatch(batch.batchId, 'pause')}>
                Pause batch
              </button>
            ))}
          {!batch.finished && (
            <button type="button" onClick={() => void actBatch(batch.batchId, 'cancel')}>
              Cancel batch
            </button>
          )}
          {retries.length > 0 && (
            <button
              type="button"
              onClick={() =>
                void actBatch(
                  batch.batchId,
                  'retry',
                  retries.map((j) => j.id),
                )
              }
            >
              Retry failed ({retries.length})
            </button>
          )}
        </div>
      </div>
      <div className="batch-progress">
        <ProgressBar value={batch.progress} label={`Progress of ${name}`} text={`${percent} %`} />
        <span className="batch-percent" data-testid="batch-percent">
          {percent} %
        </span>
      </div>
      {batch.paused && !batch.finished && (
        <p className="note note-info batch-note" role="status">
          This batch is paused: its {batch.counts.waiting === 1 ? 'waiting job does' : 'waiting jobs do'} not
          start until you resume it. Jobs already under way go on.
        </p>
      )}
      {batch.outputDir && (
        <div className="batch-output muted">
          Meshes go to <code data-testid="batch-output-dir">{batch.outputDir}</code>
          {batch.revealable && (
            <button
              type="button"
              className="link-button"
              aria-label={`Show the meshes of ${name} in their folder`}
              onClick={() => void reveal(batch.revealable!.jobId, batch.revealable!.index)}
            >
              Show in folder
            </button>
          )}
        </div>
      )}
      {actionError && <ErrorNote error={actionError} />}
    </div>
  );
}
