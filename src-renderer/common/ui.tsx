import type { ReactNode } from 'react';
import type { ErrorText } from '../bridge/api';

/** An error in words, with what to do about it and optional buttons. */
export function ErrorNote({
  error,
  children,
  onDismiss,
  testId,
}: {
  error: ErrorText;
  children?: ReactNode;
  onDismiss?: () => void;
  testId?: string;
}) {
  return (
    <div className="note note-error" role="alert" data-testid={testId}>
      <div className="note-body">
        <p className="note-title">{error.message}</p>
        {error.action && <p className="note-action">{error.action}</p>}
        {children && <div className="row note-buttons">{children}</div>}
      </div>
      {onDismiss && (
        <button type="button" className="icon-button" aria-label="Dismiss message" onClick={onDismiss}>
          ×
        </button>
      )}
    </div>
  );
}

/** A switch that is a checkbox underneath: keyboard and screen readers get the native control. */
export function Switch({
  id,
  checked,
  onChange,
  label,
  hint,
  disabled,
}: {
  id: string;
  checked: boolean;
  onChange: (on: boolean) => void;
  label: string;
  hint?: string;
  disabled?: boolean;
}) {
  return (
    <div className="switch-field">
      <input
        id={id}
        type="checkbox"
        role="switch"
        className="switch"
        checked={checked}
        disabled={disabled}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(e) => onChange(e.target.checked)}
      />
      <label htmlFor={id}>{label}</label>
      {hint && (
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
      )}
    </div>
  );
}

/** A progress bar that says what it measures; without a value it shows work under way. */
export function ProgressBar({ value, label, text }: { value: number | null; label: string; text?: string }) {
  return (
    <div
      className={`progress${value === null ? ' progress-indeterminate' : ''}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={value === null ? undefined : Math.round(value * 100)}
      aria-valuetext={text}
    >
      <div className="progress-fill" style={value === null ? undefined : { width: `${value * 100}%` }} />
    </div>
  );
}
