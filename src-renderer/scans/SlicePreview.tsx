import {
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type PointerEvent,
} from 'react';
import type { SeriesSummary, SlicePlane, SlicePreview as Preview } from '../../src-shared/scans';
import { api, errorText, type ErrorText } from '../bridge/api';
import { displayAspect, dragWindowLevel, greyToRgba } from './preview-pixels';

interface View {
  plane: SlicePlane;
  /** Undefined until the first answer: the app picks the middle slice and the scan's own window. */
  index?: number;
  window?: number;
  level?: number;
}

const PLANES: { id: SlicePlane; label: string }[] = [
  { id: 'axial', label: 'Axial' },
  { id: 'coronal', label: 'Coronal' },
  { id: 'sagittal', label: 'Sagittal' },
];

/**
 * One slice of a series: the mouse wheel or the arrow keys move through slices, dragging or the
 * + / − and [ / ] keys change window and level. Requests are coalesced: while one is on its way only
 * the newest wish waits, so fast scrolling never queues up stale slices.
 */
export function SlicePreview({
  series,
  label,
  usable,
}: {
  series: SeriesSummary;
  label: string;
  usable: boolean;
}) {
  const [view, setView] = useState<View>({ plane: 'axial' });
  const [preview, setPreview] = useState<Preview | null>(null);
  const [error, setError] = useState<ErrorText | null>(null);
  const [visible, setVisible] = useState(false);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  const wanted = useRef<View | null>(null);
  const busy = useRef(false);
  const drag = useRef<{ x: number; y: number; window: number; level: number; id: number } | null>(null);
  const wheelAcc = useRef(0);

  // Only cards on screen ask for pixels: a batch of fifty scans must not decode fifty slices at once.
  useEffect(() => {
    const el = boxRef.current;
    if (!el || typeof IntersectionObserver === 'undefined') {
      setVisible(true);
      return;
    }
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        setVisible(true);
        io.disconnect();
      }
    });
    io.observe(el);
    return () => io.disconnect();
  }, []);

  const pump = useCallback(async () => {
    if (busy.current) return;
    busy.current = true;
    while (wanted.current) {
      const v = wanted.current;
      wanted.current = null;
      try {
        const p = await api.scans.preview({
          seriesId: series.id,
          plane: v.plane,
          ...(v.index !== undefined ? { index: v.index } : {}),
          ...(v.window !== undefined ? { window: v.window } : {}),
          ...(v.level !== undefined ? { level: v.level } : {}),
        });
        setPreview(p);
        setError(null);
        // The first answer tells the middle slice and the scan's window; later wishes start from there.
        setView((cur) =>
          cur.plane === p.plane
            ? {
                plane: cur.plane,
                index: cur.index ?? p.index,
                window: cur.window ?? p.window,
                level: cur.level ?? p.level,
              }
            : cur,
        );
      } catch (e) {
        setError(errorText(e));
      }
    }
    busy.current = false;
  }, [series.id]);

  useEffect(() => {
    if (!visible || !series.previewable) return;
    wanted.current = view;
    void pump();
  }, [view, visible, series.previewable, pump]);

  const decoded = useMemo(():
    { rgba: Uint8ClampedArray<ArrayBuffer>; preview: Preview } | { error: ErrorText } | null => {
    if (!preview) return null;
    try {
      return { rgba: greyToRgba(preview.pixels, preview.width, preview.height), preview };
    } catch (e) {
      return { error: errorText(e) };
    }
  }, [preview]);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas || !decoded || !('rgba' in decoded)) return;
    const { rgba, preview: p } = decoded;
    canvas.width = p.width;
    canvas.height = p.height;
    canvas.getContext('2d')?.putImageData(new ImageData(rgba, p.width, p.height), 0, 0);
  }, [decoded]);
  const shownError = error ?? (decoded && 'error' in decoded ? decoded.error : null);

  const count = preview && preview.plane === view.plane ? preview.count : 0;
  const index = view.index ?? preview?.index ?? 0;
  const win = view.window ?? preview?.window;
  const lev = view.level ?? preview?.level;

  const step = useCallback(
    (delta: number) => {
      if (count <= 0) return;
      setView((v) => ({ ...v, index: Math.min(count - 1, Math.max(0, (v.index ?? index) + delta)) }));
    },
    [count, index],
  );

  const changeWindow = (factor: number): void => {
    if (win === undefined) return;
    setView((v) => ({ ...v, window: Math.max(1, Math.round((v.window ?? win) * factor)) }));
  };
  const changeLevel = (delta: number): void => {
    if (win === undefined || lev === undefined) return;
    setView((v) => ({ ...v, level: Math.round((v.level ?? lev) + delta * Math.max(1, win / 20)) }));
  };

  // React's wheel listener is passive; stopping the page from scrolling needs a native one.
  useEffect(() => {
    const el = boxRef.current;
    if (!el) return;
    const onWheel = (e: WheelEvent): void => {
      e.preventDefault();
      const px = e.deltaMode === 1 ? e.deltaY * 40 : e.deltaMode === 2 ? e.deltaY * 400 : e.deltaY;
      wheelAcc.current += px;
      const steps = Math.trunc(wheelAcc.current / 40);
      if (steps !== 0) {
        wheelAcc.current -= steps * 40;
        step(steps);
      }
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [step]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const keys: Record<string, () => void> = {
      ArrowUp: () => step(1),
      ArrowRight: () => step(1),
      ArrowDown: () => step(-1),
      ArrowLeft: () => step(-1),
      PageUp: () => step(10),
      PageDown: () => step(-10),
      Home: () => step(-count),
      End: () => step(count),
      '+': () => changeWindow(1 / 1.25),
      '=': () => changeWindow(1 / 1.25),
      '-': () => changeWindow(1.25),
      '[': () => changeLevel(-1),
      ']': () => changeLevel(1),
      r: () => setView((v) => ({ plane: v.plane, index: v.index })),
    };
    const run = keys[e.key];
    if (run && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      run();
    }
  };

  const onPointerDown = (e: PointerEvent<HTMLDivElement>): void => {
    if (e.button !== 0 || win === undefined || lev === undefined) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = { x: e.clientX, y: e.clientY, window: win, level: lev, id: e.pointerId };
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>): void => {
    const d = drag.current;
    if (!d || d.id !== e.pointerId) return;
    const next = dragWindowLevel(d, e.clientX - d.x, e.clientY - d.y);
    setView((v) => ({ ...v, ...next }));
  };
  const endDrag = (): void => {
    drag.current = null;
  };

  const planeLabel = PLANES.find((p) => p.id === view.plane)?.label ?? view.plane;
  const valueText =
    count > 0
      ? `${planeLabel} slice ${index + 1} of ${count}; window ${win ?? '?'}, level ${lev ?? '?'}`
      : 'Loading slice';
  const aspect = preview ? displayAspect(preview.width, preview.height, preview.pixelSpacing) : 1;

  if (!series.previewable)
    return (
      <div className="preview preview-none" data-testid="slice-preview">
        <p className="muted">
          No preview: this scan’s pixels cannot be decoded on this computer.
          {usable ? ' It can still be sent.' : ''}
        </p>
      </div>
    );

  return (
    <div className="preview" data-testid="slice-preview">
      <div className="preview-planes" role="group" aria-label={`Slice plane for ${label}`}>
        {PLANES.map((p) => (
          <button
            key={p.id}
            type="button"
            className="seg"
            aria-pressed={view.plane === p.id}
            onClick={() =>
              setView((v) => (v.plane === p.id ? v : { plane: p.id, window: v.window, level: v.level }))
            }
          >
            {p.label}
          </button>
        ))}
      </div>
      <div
        ref={boxRef}
        className="preview-box"
        role="slider"
        tabIndex={0}
        aria-label={`Slice preview of ${label}`}
        aria-valuemin={count > 0 ? 1 : 0}
        aria-valuemax={count}
        aria-valuenow={count > 0 ? index + 1 : 0}
        aria-valuetext={valueText}
        aria-busy={!preview}
        data-testid="slice-box"
        onKeyDown={onKeyDown}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={endDrag}
        onPointerCancel={endDrag}
      >
        <canvas
          ref={canvasRef}
          aria-hidden="true"
          style={{ aspectRatio: String(aspect), visibility: preview ? 'visible' : 'hidden' }}
        />
        {!preview && !shownError && <span className="preview-wait">Loading slice…</span>}
      </div>
      <div className="preview-meta">
        <span data-testid="slice-position">{count > 0 ? `${planeLabel} ${index + 1} / ${count}` : '—'}</span>
        <span>{win !== undefined ? `W ${win} · L ${lev}` : ''}</span>
      </div>
      {shownError && (
        <p className="problem" role="alert">
          {shownError.message}
        </p>
      )}
      <p className="hint preview-hint">Wheel or ↑ ↓ to scroll · drag, + − and [ ] for contrast · R resets</p>
    </div>
  );
}
