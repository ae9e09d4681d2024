import { useState } from 'react';
import type { SeriesSummary } from '../../src-shared/scans';
import { formatBytes, formatDicomDate, formatMm, formatPersonName } from '../common/format';
import { Switch } from '../common/ui';
import { SlicePreview } from './SlicePreview';
import { duplicateOf } from './duplicates';
import { isUsable, unfitReasons } from '../../src-shared/series-usable';
import { useScans } from './scans-store';
import './series-fitness.css';
import './series-duplicate.css';
import './series-card.css';

const SEVERITY_WORD = { error: 'Cannot be used', warning: 'Check', info: 'Note' } as const;

function seriesTitle(s: SeriesSummary): string {
  return (
    s.seriesDescription || (s.seriesNumber !== undefined ? `Series ${s.seriesNumber}` : 'Unnamed series')
  );
}

/** One series found in a drop: who and what it is, whether it can be used, a slice, and its switches. */
export function SeriesCard({ series }: { series: SeriesSummary }) {
  const selected = useScans((s) => s.selected.includes(series.id));
  const deid = useScans((s) => s.deidentify[series.id] ?? true);
  const { toggleSelected, setDeidentify, remove, setInsist } = useScans.getState();
  // The same images already on the list (a folder and its zip): flagged, sent once unless insisted.
  const first = useScans((s) => duplicateOf(series, s.series));
  const firstSource = useScans((s) => (first ? s.sources[first.id] : undefined));
  const insisted = useScans((s) => s.insisted.includes(series.id));
  const usable = isUsable(series);
  const patient = formatPersonName(series.patient.name);
  const title = seriesTitle(series);
  const label = `${patient}, ${title}`;
  const idBase = `series-${series.id}`;
  const [ps0, ps1] = series.pixelSpacing;
  // A series that cannot be used says why on its face; its details stay one click away.
  const [open, setOpen] = useState(usable);
  const errors = series.problems.filter((p) => p.severity === 'error');
  const unfit = unfitReasons(
    series,
    errors.map((e) => e.message),
  );
  const whyId = `${idBase}-why`;

  return (
    <article
      className={`card series-card${selected ? ' series-selected' : ''}${usable ? '' : ' series-unusable'}`}
      aria-labelledby={`${idBase}-title`}
      data-testid="series-card"
    >
      <header className="series-head">
        <input
          id={`${idBase}-select`}
          type="checkbox"
          checked={selected}
          disabled={!usable || (!!first && !insisted)}
          onChange={() => toggleSelected(series.id)}
          aria-label={`Include ${label} in the next submission`}
          aria-describedby={usable ? undefined : whyId}
        />
        <div className="series-names">
          <h2 id={`${idBase}-title`}>{patient}</h2>
          <p className="muted">
            {title} · {series.modality || 'no modality'}
            {series.manufacturer ? ` · ${series.manufacturer}` : ''}
          </p>
        </div>
        <button
          type="button"
          className="icon-button"
          aria-label={`Remove ${label} from the list`}
          title="Remove from the list"
          onClick={() => remove(series.id)}
        >
          ×
        </button>
      </header>

      {first && (
        <div className="note note-warning series-duplicate" data-testid="series-duplicate" role="note">
          <div className="note-body">
            <p>
              <strong>Also dropped as {firstSource ?? seriesTitle(first)}</strong>: the same series with the
              same images. It is sent once, from that card.
            </p>
            {/* A series that cannot be sent is offered no way to send a copy of it. */}
            {usable && (
              <label className="row">
                <input
                  type="checkbox"
                  checked={insisted}
                  onChange={(e) => setInsist(series.id, e.target.checked)}
                />
                Send this copy too
              </label>
            )}
          </div>
        </div>
      )}

      {!usable && (
        <div className="series-refused">
          <div id={whyId} data-testid="series-refusal">
            {errors.length > 0 && (
              <p className="problem-item sev-error">
                <strong>Cannot be used:</strong> {errors[0]?.message}
                {errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}
              </p>
            )}
            {(unfit.length > 0 || errors.length === 0) && (
              <div className="problem-item sev-error">
                <strong>No model can be made of it:</strong>
                <ul className="fitness-reasons">
                  {(unfit.length > 0 ? unfit : ['The app cannot tell why; see the details.']).map((r) => (
                    <li key={r}>{r}</li>
                  ))}
                </ul>
              </div>
            )}
          </div>
          <button
            type="button"
            className="link-button"
            aria-expanded={open}
            aria-controls={`${idBase}-body`}
            onClick={() => setOpen((v) => !v)}
          >
            {open ? 'Hide details' : 'Show details'}
          </button>
        </div>
      )}

      <div className="series-body" id={`${idBase}-body`} hidden={!open}>
        {open && <SlicePreview series={series} label={label} usable={usable} />}
        <div className="series-facts">
          <dl className="facts">
            <dt>Patient ID</dt>
            <dd>{series.patient.id || '—'}</dd>
            <dt>Born</dt>
            <dd>{formatDicomDate(series.patient.birthDate) || '—'}</dd>
            <dt>Study</dt>
            <dd>
              {formatDicomDate(series.study.date) || 'no date'}
              {series.study.description ? ` · ${series.study.description}` : ''}
            </dd>
            <dt>Size</dt>
            <dd data-testid="series-size">
              {series.columns} × {series.rows} × {series.slices}
              {series.multiFrame ? ' (one multi-frame file)' : ''}
            </dd>
            <dt>Voxel</dt>
            <dd>
              {series.pixelSpacingUnknown ? 'pixel size unknown' : `${formatMm(ps1)} × ${formatMm(ps0)} mm`}
              {' × '}
              {series.sliceSpacingUnknown
                ? 'slice spacing unknown'
                : `${formatMm(series.sliceSpacing)} mm`}, {series.orientation.plane}
            </dd>
            <dt>Files</dt>
            <dd>
              {series.fileCount} · {formatBytes(series.totalBytes)}
              {series.transferSyntax.compressed ? ` · ${series.transferSyntax.name}` : ''}
            </dd>
          </dl>

          {series.problems.length > 0 && (
            <ul className="problems" aria-label={`Problems found in ${label}`}>
              {series.problems.map((p, i) => (
                <li key={`${p.code}-${i}`} className={`problem-item sev-${p.severity}`}>
                  <strong>{SEVERITY_WORD[p.severity]}:</strong> {p.message}
                </li>
              ))}
            </ul>
          )}
          {series.problems.length === 0 && usable && <p className="ok-text">Ready to send.</p>}

          <Switch
            id={`${idBase}-deid`}
            checked={deid}
            onChange={(on) => setDeidentify(series.id, on)}
            label="De-identify before sending"
            hint={
              deid
                ? 'Name, IDs and dates are removed from the copy that is sent.'
                : 'Patient data is sent as it is in the files.'
            }
            disabled={!usable}
          />
        </div>
      </div>
    </article>
  );
}
