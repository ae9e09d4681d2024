import { baseName, formatBytes, plural } from '../common/format';
import { ErrorNote, ProgressBar } from '../common/ui';
import { groupByReason } from './intake-groups';
import { useScans, type IntakeNotice } from './scans-store';
import './intake-notices.css';

/**
 * One summary per drop: what was found, then each reason once with every file it covers (open the
 * group to see them all), and what to do about it.
 */
function NoticeView({ notice }: { notice: IntakeNotice }) {
  const dismiss = useScans((s) => s.dismissNotice);
  const groups = groupByReason(notice.problems, notice.skipped);
  const kind = notice.severity === 'error' ? 'error' : notice.severity === 'warning' ? 'warning' : 'info';
  return (
    <div
      className={`note note-${kind} intake-notice`}
      role={notice.severity === 'error' ? 'alert' : 'status'}
      data-testid="intake-notice"
    >
      <div className="note-body">
        <p className="note-title">{notice.title}</p>
        {groups.length > 0 && (
          <ul className="reason-groups" aria-label="Reasons">
            {groups.map((g) => (
              <li key={g.reason} data-testid="reason-group">
                {g.items.length > 0 && g.items.some((i) => i.file) ? (
                  <details>
                    <summary>
                      <strong>{g.reason}</strong>: {plural(g.items.length, 'file')}
                    </summary>
                    <ul className="reason-items">
                      {g.items.map((i, n) => (
                        <li key={`${i.file ?? ''}-${n}`} title={i.file}>
                          <span className="reason-file">{i.file ? baseName(i.file) : ''}</span>
                          {i.detail ? <span className="muted"> · {i.detail}</span> : null}
                        </li>
                      ))}
                    </ul>
                  </details>
                ) : (
                  <strong>{g.reason}</strong>
                )}
                {g.action && <p className="reason-action muted">{g.action}</p>}
              </li>
            ))}
          </ul>
        )}
        {notice.severity === 'error' && (
          <p className="note-action">
            Drop a DICOM folder, a .zip of DICOM files, or one multi-frame .dcm file of a CT or CBCT scan.
          </p>
        )}
      </div>
      <button
        type="button"
        className="icon-button"
        aria-label="Dismiss message"
        onClick={() => dismiss(notice.id)}
      >
        ×
      </button>
    </div>
  );
}

/** What is happening with, and what went wrong in, the scans the user added. */
export function IntakeStatus() {
  const progress = useScans((s) => s.progress);
  const notices = useScans((s) => s.notices);
  const error = useScans((s) => s.error);
  const clearError = useScans((s) => s.clearError);
  return (
    <div className="intake-status">
      {progress && (
        <div className="card intake-progress" role="status" data-testid="intake-progress">
          {progress.phase === 'copying' ? (
            <>
              <p>
                Copying {plural(progress.files, 'file')} into the app… {progress.filesDone} done (
                {formatBytes(progress.bytesDone)} of {formatBytes(progress.bytes)})
              </p>
              <ProgressBar
                value={progress.bytes > 0 ? progress.bytesDone / progress.bytes : null}
                label="Copying scan files"
              />
            </>
          ) : (
            <>
              <p>Reading the scans…</p>
              <ProgressBar value={null} label="Reading scans" />
            </>
          )}
        </div>
      )}
      {error && <ErrorNote error={error} onDismiss={clearError} testId="intake-error" />}
      {notices.map((n) => (
        <NoticeView key={n.id} notice={n} />
      ))}
    </div>
  );
}
