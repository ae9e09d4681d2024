import { formatMm } from './format-units.js';
import { useViewerStore } from './viewer-store.js';

/** Every kept measurement with its distance; each can be removed, or all at once. */
export function MeasurementList() {
  const measure = useViewerStore((s) => s.measure);
  const remove = useViewerStore((s) => s.removeMeasurement);
  const clear = useViewerStore((s) => s.clearMeasurements);
  const { measurements } = measure;
  if (measurements.length === 0 && !measure.pending) return null;
  return (
    <section className="vw-measurements" aria-labelledby="vw-measure-heading">
      <div className="vw-section-head">
        <h2 id="vw-measure-heading" className="vw-heading">
          Measurements
        </h2>
        {measurements.length > 0 && (
          <button type="button" className="vw-button vw-small" onClick={clear}>
            Clear all<span className="sr-only"> measurements</span>
          </button>
        )}
      </div>
      <ol className="vw-measure-list" data-testid="measurement-list">
        {measurements.map((m) => (
          <li key={m.id} className="vw-measure-item" data-testid="measurement">
            <span className="vw-measure-label">{m.label}</span>
            <span className="vw-measure-value">{formatMm(m.distance)} mm</span>
            <button
              type="button"
              className="vw-icon-button"
              onClick={() => remove(m.id)}
              aria-label={`Remove measurement ${m.label}, ${formatMm(m.distance)} mm`}
              title="Remove this measurement"
            >
              ×
            </button>
          </li>
        ))}
      </ol>
      {measure.pending && (
        <p className="vw-muted vw-small-text">Measurement {measure.next}: click a second point.</p>
      )}
    </section>
  );
}
