import { baseName, formatBytes, plural } from '../common/format';
import { ErrorNote, ProgressBar } from '../common/ui';
import { useScans, type IntakeNotice } from './scans-store';

const SHOWN = 6;

function NoticeView({ notice }: { notice: IntakeNotice }) {
  const dismiss = useScans((s) => s.dismissNotice);
  const lines = [
    ...notice.problems.map((p) => ({ key: `p-${p.code}-${p.file ?? ''}`, text: p.message, file: p.file })),
    ...notice.skipped.map((s) => ({ key: `s-${s.path}`, text: s.reason, file: s.path })),
  ];
  return (
    <div
      className={`note note-${notice.severity === 'error' ? 'error' : notice.severity === 'warning' ? 'warning' : 'info'}`}
      role={notice.severity === 'error' ? 'alert' : 'status'}
      data-testid="intake-notice"
    >
      <div className="note-body">
        <p className="note-title">{notice.title}</p>
        {lines.length > 0 && (
          <ul>
            {lines.slice(0, SHOWN).map((l) => (
              <li key={l.key}>
                {l.file ? <strong>{baseName(l.file)}: </strong> : null}
                {l.text}
              </li>
            ))}
            {lines.length > SHOWN && <li>and {plural(lines.length - SHOWN, 'more file')}.</li>}
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
