import { useViewerStore } from './viewer-store.js';

export function ViewerStatus() {
  const status = useViewerStore((s) => s.status);
  const notices = useViewerStore((s) => s.notices);
  const dismiss = useViewerStore((s) => s.dismissNotice);
  return (
    <footer className="vw-footer">
      {notices.length > 0 && (
        // The alert role on a wrapper: on the list itself it would hide the list from assistive technology.
        <div role="alert">
          <ul className="vw-notices" data-testid="viewer-notices">
            {notices.map((n) => (
              <li key={n.id} className="vw-notice">
                <span>
                  {n.message}
                  {n.action && <span className="vw-notice-action"> {n.action}</span>}
                </span>
                <button
                  type="button"
                  className="vw-icon-button"
                  onClick={() => dismiss(n.id)}
                  aria-label="Dismiss message"
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      <p className="vw-status" role="status" data-testid="viewer-status">
        {status}
      </p>
    </footer>
  );
}
