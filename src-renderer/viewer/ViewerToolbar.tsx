import { useId } from 'react';
import type { RefObject } from 'react';
import { formatMm } from './format-units.js';
import { MESH_FILE_ACCEPT } from './mesh-format.js';
import type { SceneController } from './scene-controller.js';
import { STANDARD_VIEWS, VIEW_ORDER } from './standard-views.js';
import { openMeshFiles } from './viewer-actions.js';
import { clipPosition, shownBounds, useViewerStore } from './viewer-store.js';
import type { ClipAxis } from './viewer-store.js';

const AXIS_LABELS: Record<ClipAxis, string> = {
  x: 'Sagittal (left–right)',
  y: 'Coronal (front–back)',
  z: 'Axial (top–bottom)',
};

function screenshotName(): string {
  const d = new Date();
  const p = (n: number): string => String(n).padStart(2, '0');
  return `scan2mesh-view-${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}.png`;
}

async function saveScreenshot(controller: SceneController | null): Promise<void> {
  if (!controller) return;
  const store = useViewerStore.getState();
  try {
    const png = await controller.screenshot();
    const url = URL.createObjectURL(png);
    const a = document.createElement('a');
    a.href = url;
    a.download = screenshotName();
    a.click();
    // The download has its own reference once started; a later revoke frees the PNG.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    store.setStatus(`Saved screenshot ${a.download}`);
  } catch (e) {
    store.addNotice({
      message: `The screenshot could not be made: ${e instanceof Error ? e.message : String(e)}`,
    });
  }
}

function ClipControls() {
  const clip = useViewerStore((s) => s.clip);
  const setClip = useViewerStore((s) => s.setClip);
  const items = useViewerStore((s) => s.items);
  const bounds = shownBounds(items);
  const k = { x: 0, y: 1, z: 2 }[clip.axis];
  const min = bounds ? bounds[k]! : 0;
  const max = bounds ? bounds[k + 3]! : 1;
  const id = useId();
  const position = clipPosition(clip, items);
  return (
    <fieldset className="vw-group" disabled={!bounds}>
      <legend>Clipping</legend>
      <label className="vw-check">
        <input
          type="checkbox"
          checked={clip.enabled}
          onChange={(e) => setClip({ enabled: e.target.checked })}
        />
        Clip
      </label>
      <label htmlFor={`${id}-axis`} className="sr-only">
        Clipping plane
      </label>
      <select
        id={`${id}-axis`}
        value={clip.axis}
        disabled={!clip.enabled}
        onChange={(e) => {
          const axis = e.target.value as ClipAxis;
          // Starting in the middle shows the inside at once.
          setClip({ axis, position: null });
        }}
      >
        {(Object.keys(AXIS_LABELS) as ClipAxis[]).map((a) => (
          <option key={a} value={a}>
            {AXIS_LABELS[a]}
          </option>
        ))}
      </select>
      <input
        type="range"
        min={min}
        max={max}
        step={(max - min) / 200 || 1}
        value={Math.min(max, Math.max(min, position))}
        disabled={!clip.enabled}
        onChange={(e) => setClip({ position: Number(e.target.value) })}
        aria-label="Clipping plane position"
        aria-valuetext={`${formatMm(position)} mm`}
      />
      <label className="vw-check">
        <input
          type="checkbox"
          checked={clip.flip}
          disabled={!clip.enabled}
          onChange={(e) => setClip({ flip: e.target.checked })}
        />
        Flip side
      </label>
    </fieldset>
  );
}

function MeasureControls() {
  const measuring = useViewerStore((s) => s.measuring);
  const measure = useViewerStore((s) => s.measure);
  const setMeasuring = useViewerStore((s) => s.setMeasuring);
  const last = measure.measurements.at(-1);
  // The newest result stays readable here; every kept measurement is listed in the panel.
  const text = measure.pending
    ? 'Click a second point'
    : measuring && !last
      ? 'Click two points'
      : last
        ? `${formatMm(last.distance)} mm`
        : '';
  return (
    <fieldset className="vw-group">
      <legend>Measure</legend>
      <button
        type="button"
        className="vw-button"
        aria-pressed={measuring}
        onClick={() => setMeasuring(!measuring)}
        title="Click two points on the surface to measure the distance between them; each pair is kept in the list"
      >
        Distance
      </button>
      <output className="vw-measure" data-testid="measure-readout" aria-live="polite">
        {text}
      </output>
    </fieldset>
  );
}

export function ViewerToolbar({ controllerRef }: { controllerRef: RefObject<SceneController | null> }) {
  const wireframe = useViewerStore((s) => s.wireframe);
  const setWireframe = useViewerStore((s) => s.setWireframe);
  const hasMeshes = useViewerStore((s) => s.items.length > 0);
  const inputId = useId();
  return (
    <div className="vw-toolbar" role="toolbar" aria-label="Viewer tools">
      <div className="vw-group vw-group-plain">
        <input
          id={inputId}
          type="file"
          className="vw-file-input"
          accept={MESH_FILE_ACCEPT}
          multiple
          onChange={(e) => {
            openMeshFiles([...(e.target.files ?? [])]);
            // Choosing the same file again must fire change again.
            e.target.value = '';
          }}
        />
        <label htmlFor={inputId} className="vw-button vw-primary">
          Open mesh…
        </label>
        <button
          type="button"
          className="vw-button"
          disabled={!hasMeshes}
          onClick={() => void saveScreenshot(controllerRef.current)}
        >
          Screenshot
        </button>
      </div>
      <fieldset className="vw-group" disabled={!hasMeshes}>
        <legend>View</legend>
        <button
          type="button"
          className="vw-button"
          onClick={() => controllerRef.current?.fit()}
          title="Fit to view (F)"
        >
          Fit
        </button>
        {VIEW_ORDER.map((v) => (
          <button
            key={v}
            type="button"
            className="vw-button"
            onClick={() => controllerRef.current?.setView(v)}
            title={`${STANDARD_VIEWS[v].label} view (${STANDARD_VIEWS[v].key})`}
          >
            {STANDARD_VIEWS[v].label}
          </button>
        ))}
        <button
          type="button"
          className="vw-button"
          aria-pressed={wireframe}
          onClick={() => setWireframe(!wireframe)}
        >
          Wireframe
        </button>
      </fieldset>
      <ClipControls />
      <MeasureControls />
    </div>
  );
}
