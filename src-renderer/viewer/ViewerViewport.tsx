import { useEffect, useRef, useState } from 'react';
import type { KeyboardEvent, RefObject } from 'react';
import { isAppError } from '../../src-shared/errors.js';
import { MARKS, cancelLoad } from './viewer-actions.js';
import { STAGE_LABELS, prepareMeshLoader, releaseMeshLoader } from './mesh-loader.js';
import { meshRegistry } from './mesh-registry.js';
import { drawOrientationMarker, viewUnchanged } from './orientation-marker.js';
import { SceneController } from './scene-controller.js';
import { STANDARD_VIEWS, VIEW_ORDER } from './standard-views.js';
import { clipPosition, useViewerStore } from './viewer-store.js';
import type { PendingLoad, ViewerState } from './viewer-store.js';

const ROTATE_STEP = (5 * Math.PI) / 180;
const PAN_STEP = 24;
const ZOOM_STEP = 1.15;

/** Brings the scene in line with the store: meshes in and out, colours, clipping, wireframe. */
function syncScene(c: SceneController, s: ViewerState, prev: ViewerState | null): void {
  const ids = new Set(s.items.map((i) => i.id));
  for (const id of c.meshIds()) if (!ids.has(id)) c.removeMesh(id);
  for (const item of s.items) {
    const look = { colour: item.colour, visible: item.visible, opacity: item.opacity };
    if (!c.hasMesh(item.id)) {
      const data = meshRegistry.get(item.id);
      if (data) c.addMesh(item.id, data, look);
    } else if (prev?.items.find((i) => i.id === item.id) !== item) {
      c.setAppearance(item.id, look);
    }
  }
  if (!prev || prev.wireframe !== s.wireframe) c.setWireframe(s.wireframe);
  // A plane in the middle of the scene moves when meshes come and go.
  if (!prev || prev.clip !== s.clip || (s.clip.position === null && prev.items !== s.items)) {
    c.setClip({ ...s.clip, position: clipPosition(s.clip, s.items) });
  }
  if (!prev || prev.measure !== s.measure) c.setMeasurements(s.measure.measurements, s.measure.pending);
}

function canvasBackground(el: HTMLElement): string {
  return getComputedStyle(el).getPropertyValue('--vw-canvas-bg').trim() || '#20242a';
}

function LoadProgressRow({ load }: { load: PendingLoad }) {
  const stage =
    load.stage === 'queued'
      ? 'Waiting'
      : load.stage === 'download'
        ? 'Downloading'
        : STAGE_LABELS[load.stage];
  const percent = load.overall === null ? null : Math.round(load.overall * 100);
  return (
    <li className="vw-load">
      <span className="vw-load-text">
        {load.name}: {stage}
        {percent === null ? '…' : ` ${percent}%`}
      </span>
      <progress
        max={1}
        {...(load.overall === null ? {} : { value: load.overall })}
        aria-label={`Loading ${load.name}: ${stage}`}
      />
      <button type="button" className="vw-button vw-small" onClick={() => cancelLoad(load.id)}>
        Cancel<span className="sr-only"> loading {load.name}</span>
      </button>
    </li>
  );
}

export function ViewerViewport({ controllerRef }: { controllerRef: RefObject<SceneController | null> }) {
  const hostRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const markerRef = useRef<SVGSVGElement>(null);
  const failure = useViewerStore((s) => s.viewFailure);
  const [orientation, setOrientation] = useState('');
  const loads = useViewerStore((s) => s.loads);
  const empty = useViewerStore((s) => s.items.length === 0);

  useEffect(() => {
    const host = hostRef.current;
    const canvas = canvasRef.current;
    if (!host || !canvas) return;
    let controller: SceneController;
    let lastOrientation = '';
    const lastView = new Float64Array(16);
    try {
      controller = new SceneController(canvas, {
        onFrame: (m) => {
          if (!markerRef.current) return;
          // A picture built over many frames keeps one view: redrawing the marker would only make
          // the page lay out and paint it again in each of them.
          if (viewUnchanged(lastView, m)) return;
          const text = drawOrientationMarker(markerRef.current, m);
          if (text !== lastOrientation) {
            lastOrientation = text;
            setOrientation(text);
          }
        },
        onFirstDrawn: (id, renderMs) => performance.mark(MARKS.drawn(id), { detail: { renderMs } }),
        onPick: (p) => useViewerStore.getState().addMeasurePoint(p),
        onContextLost: () =>
          useViewerStore
            .getState()
            .setViewFailure(
              'The 3D view stopped: the graphics processor reset or ran out of memory. Remove large meshes and reopen the viewer.',
            ),
      });
    } catch (e) {
      useViewerStore.getState().setViewFailure(isAppError(e) ? `${e.message} ${e.action ?? ''}` : String(e));
      return;
    }
    controllerRef.current = controller;
    prepareMeshLoader();
    useViewerStore.getState().setViewFailure(null);
    controller.setBackground(canvasBackground(host));
    const scheme = matchMedia('(prefers-color-scheme: dark)');
    const onScheme = (): void => controller.setBackground(canvasBackground(host));
    scheme.addEventListener('change', onScheme);
    let synced = useViewerStore.getState();
    syncScene(controller, synced, null);
    controller.setMeasuring(synced.measuring);
    // The scene follows the store in a task of its own: a large mesh's objects, built in the task
    // where it arrives along with the render of the panels that list it, made one long task.
    let pending = 0;
    const unsubscribe = useViewerStore.subscribe((now, before) => {
      // What a click on the view is taken for follows at once, not in that task: the browser runs
      // input before timers, so a click right after "Distance" came before measuring was on, and
      // was lost (seen with both cores busy).
      if (now.measuring !== before.measuring) controller.setMeasuring(now.measuring);
      pending ||= window.setTimeout(() => {
        pending = 0;
        const s = useViewerStore.getState();
        syncScene(controller, s, synced);
        synced = s;
      }, 0);
    });
    return () => {
      unsubscribe();
      window.clearTimeout(pending);
      scheme.removeEventListener('change', onScheme);
      controllerRef.current = null;
      releaseMeshLoader();
      controller.dispose();
    };
  }, [controllerRef]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const c = controllerRef.current;
    if (!c || e.target !== e.currentTarget) return;
    const arrows: Record<string, [number, number]> = {
      ArrowLeft: [1, 0],
      ArrowRight: [-1, 0],
      ArrowUp: [0, 1],
      ArrowDown: [0, -1],
    };
    const arrow = arrows[e.key];
    const view = VIEW_ORDER.find((v) => STANDARD_VIEWS[v].key === e.key);
    if (arrow && e.shiftKey) c.pan(-arrow[0] * PAN_STEP, arrow[1] * PAN_STEP);
    else if (arrow) c.rotate(arrow[0] * ROTATE_STEP, arrow[1] * ROTATE_STEP);
    else if (e.key === '+' || e.key === '=') c.zoom(ZOOM_STEP);
    else if (e.key === '-' || e.key === '_') c.zoom(1 / ZOOM_STEP);
    else if (e.key === 'f' || e.key === 'F') c.fit();
    else if (view) c.setView(view);
    else if (e.key === 'Escape') useViewerStore.getState().setMeasuring(false);
    else return;
    e.preventDefault();
  };

  return (
    <div className="vw-viewport" ref={hostRef}>
      <div
        className="vw-canvas-host"
        tabIndex={0}
        role="application"
        aria-roledescription="3D view"
        aria-label="3D view of the meshes"
        aria-describedby="vw-keys-help vw-orientation-text"
        onKeyDown={onKeyDown}
      >
        <canvas ref={canvasRef} data-testid="viewer-canvas" className="vw-canvas" />
      </div>
      <p id="vw-keys-help" className="sr-only">
        Drag to orbit, right-drag or Shift and arrow keys to pan, wheel or plus and minus to zoom. Arrow keys
        rotate, F fits the view, keys 1 to 6 show the anterior, posterior, left, right, superior and inferior
        views.
      </p>
      <p id="vw-orientation-text" className="sr-only">
        {orientation}
      </p>
      <svg ref={markerRef} className="vw-marker" aria-hidden="true" data-testid="orientation-marker" />
      {empty && loads.length === 0 && !failure && (
        <div className="vw-empty">
          <p>Open a mesh, or drop STL, PLY, OBJ or Draco files here.</p>
        </div>
      )}
      {loads.length > 0 && (
        <ul className="vw-loads" aria-label="Meshes loading">
          {loads.map((l) => (
            <LoadProgressRow key={l.id} load={l} />
          ))}
        </ul>
      )}
      {failure && (
        <div className="vw-failure" role="alert">
          {failure}
        </div>
      )}
    </div>
  );
}
