import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import type { SlicePlane, SlicePreview } from '../../src-shared/scans';
import { greyToRgba } from '../scans/preview-pixels';
import { useViewOutlines, type OutlineMesh } from './outline';
import {
  edgeLetters,
  patientToPixel,
  pixelSizeMm,
  pixelToPatient,
  scaleBarLength,
  type Vec3,
} from './slice-space';

const PLANE_LABEL: Record<SlicePlane, string> = {
  axial: 'Axial',
  coronal: 'Coronal',
  sagittal: 'Sagittal',
};

interface SliceViewProps {
  scanLabel: string;
  plane: SlicePlane;
  preview: SlicePreview | null;
  /** The crosshair's patient point (LPS, mm), shared by the three views. */
  cross: Vec3 | null;
  meshes: readonly OutlineMesh[];
  onPoint(p: Vec3): void;
  onStep(delta: number): void;
  /** Right-button (or Shift) drag: dx, dy in screen pixels since the drag began; done at release. */
  onContrastDrag(dx: number, dy: number, phase: 'start' | 'move' | 'end'): void;
  onKey(key: string): boolean;
  testId?: string;
  /** The slices could not be read (the message is shown below the views): no "Loading" forever. */
  failed?: boolean;
}

/** Fits a box of the given aspect (width / height) inside the stage, as large as it can be. */
function useFit(aspect: number): [React.RefObject<HTMLDivElement | null>, { w: number; h: number }] {
  const ref = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ w: 0, h: 0 });
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const fit = (): void => {
      const W = el.clientWidth;
      const H = el.clientHeight;
      const w = Math.min(W, H * aspect);
      setSize({ w: Math.floor(w), h: Math.floor(w / aspect) });
    };
    fit();
    const ro = new ResizeObserver(fit);
    ro.observe(el);
    return () => ro.disconnect();
  }, [aspect]);
  return [ref, size];
}

/**
 * One slice view: the scan's pixels, the crosshair, mesh outlines in their colours, the patient's
 * directions on each edge and a scale bar. Left click or drag moves the crosshair; the wheel and the
 * arrow keys move through slices; right drag or Shift+drag changes window and level.
 */
export function SliceView(props: SliceViewProps) {
  const { preview, plane, cross, meshes } = props;
  const imageRef = useRef<HTMLCanvasElement>(null);
  const overlayRef = useRef<HTMLCanvasElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  const drag = useRef<{ x: number; y: number; id: number; mode: 'cross' | 'contrast' } | null>(null);
  const wheelAcc = useRef(0);
  const [mmW, mmH] = preview ? pixelSizeMm(preview.geometry) : [1, 1];
  const aspect = preview ? (preview.width * mmW) / (preview.height * mmH) : 1;
  const [stageRef, frame] = useFit(aspect);

  useEffect(() => {
    const canvas = imageRef.current;
    if (!canvas || !preview) return;
    canvas.width = preview.width;
    canvas.height = preview.height;
    const rgba = greyToRgba(preview.pixels, preview.width, preview.height);
    canvas.getContext('2d')?.putImageData(new ImageData(rgba, preview.width, preview.height), 0, 0);
  }, [preview]);

  // Outlines only change with the slice or the meshes; the crosshair moving in this view does not cut again.
  const outlines = useViewOutlines(meshes, preview?.geometry ?? null);

  useEffect(() => {
    const canvas = overlayRef.current;
    if (!canvas || !preview || frame.w === 0) return;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(frame.w * dpr);
    canvas.height = Math.round(frame.h * dpr);
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    const sx = canvas.width / preview.width;
    const sy = canvas.height / preview.height;
    // Pixel (u, v) is a pixel centre: it sits half a pixel in from the image's corner.
    const X = (u: number): number => (u + 0.5) * sx;
    const Y = (v: number): number => (v + 0.5) * sy;
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    for (const o of outlines) {
      ctx.beginPath();
      for (const l of o.lines) {
        ctx.moveTo(X(l[0]!), Y(l[1]!));
        for (let i = 2; i < l.length; i += 2) ctx.lineTo(X(l[i]!), Y(l[i + 1]!));
      }
      // A dark halo under the colour keeps a pale mesh colour readable on bright bone.
      ctx.setLineDash([]);
      ctx.strokeStyle = 'rgba(0, 0, 0, 0.55)';
      ctx.lineWidth = 3 * dpr;
      ctx.stroke();
      ctx.setLineDash(o.dashed ? [5 * dpr, 3 * dpr] : []);
      ctx.strokeStyle = o.colour;
      ctx.lineWidth = 1.5 * dpr;
      ctx.stroke();
    }
    ctx.setLineDash([]);
    if (cross) {
      const [u, v] = patientToPixel(preview.geometry, cross);
      ctx.strokeStyle = 'rgba(255, 214, 10, 0.85)';
      ctx.lineWidth = 1 * dpr;
      ctx.beginPath();
      ctx.moveTo(X(u), 0);
      ctx.lineTo(X(u), canvas.height);
      ctx.moveTo(0, Y(v));
      ctx.lineTo(canvas.width, Y(v));
      ctx.stroke();
    }
  }, [preview, outlines, cross, frame.w, frame.h]);

  // React's wheel listener is passive; stopping the page from scrolling needs a native one.
  const { onStep } = props;
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
        onStep(steps);
      }
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [onStep]);

  const pointAt = (clientX: number, clientY: number): void => {
    const canvas = overlayRef.current;
    if (!canvas || !preview) return;
    const r = canvas.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return;
    const u = ((clientX - r.left) / r.width) * preview.width - 0.5;
    const v = ((clientY - r.top) / r.height) * preview.height - 0.5;
    const cu = Math.min(preview.width - 1, Math.max(0, u));
    const cv = Math.min(preview.height - 1, Math.max(0, v));
    props.onPoint(pixelToPatient(preview.geometry, cu, cv));
  };

  const onPointerDown = (e: PointerEvent<HTMLDivElement>): void => {
    if (!preview || (e.button !== 0 && e.button !== 2)) return;
    const mode = e.button === 2 || e.shiftKey ? 'contrast' : 'cross';
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = { x: e.clientX, y: e.clientY, id: e.pointerId, mode };
    if (mode === 'cross') pointAt(e.clientX, e.clientY);
    else props.onContrastDrag(0, 0, 'start');
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>): void => {
    const d = drag.current;
    if (!d || d.id !== e.pointerId) return;
    if (d.mode === 'cross') pointAt(e.clientX, e.clientY);
    else props.onContrastDrag(e.clientX - d.x, e.clientY - d.y, 'move');
  };
  const endDrag = (): void => {
    if (drag.current?.mode === 'contrast') props.onContrastDrag(0, 0, 'end');
    drag.current = null;
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (props.onKey(e.key)) e.preventDefault();
  };

  const count = preview?.count ?? 0;
  const index = preview?.index ?? 0;
  const letters = preview ? edgeLetters(preview.geometry) : null;
  const mmPerScreenPx = preview && frame.w > 0 ? (preview.width * mmW) / frame.w : 0;
  const bar = mmPerScreenPx > 0 ? scaleBarLength(mmPerScreenPx, Math.max(40, frame.w * 0.25)) : null;
  const label = PLANE_LABEL[plane];
  const valueText =
    count > 0
      ? `${label} slice ${index + 1} of ${count}; window ${Math.round(preview?.window ?? 0)}, level ${Math.round(preview?.level ?? 0)}` +
        (letters
          ? `; left ${letters.left}, right ${letters.right}, top ${letters.top}, bottom ${letters.bottom}`
          : '')
      : props.failed
        ? 'No slice to show'
        : 'Loading slice';

  return (
    <div className="rv-view" data-testid={props.testId ?? `view-${plane}`} data-plane={plane}>
      <div className="rv-view-head">
        <span className="rv-view-name">{label}</span>
        <span className="rv-view-pos" {...(plane === 'axial' ? { 'data-testid': 'slice-position' } : {})}>
          {count > 0 ? `${label} ${index + 1} / ${count}` : '—'}
        </span>
      </div>
      <div
        ref={boxRef}
        className="rv-box"
        role="slider"
        tabIndex={0}
        aria-label={`Slice preview of ${props.scanLabel}: ${label.toLowerCase()} view`}
        aria-valuemin={count > 0 ? 1 : 0}
        aria-valuemax={count}
        aria-valuenow={count > 0 ? index + 1 : 0}
        aria-valuetext={valueText}
        aria-busy={!preview}
        onKeyDown={onKeyDown}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={endDrag}
        onPointerCancel={endDrag}
        onContextMenu={(e) => e.preventDefault()}
      >
        <div ref={stageRef} className="rv-stage">
          <div className="rv-frame" style={{ width: frame.w, height: frame.h }}>
            <canvas ref={imageRef} className="rv-image" aria-hidden="true" />
            <canvas ref={overlayRef} className="rv-overlay" aria-hidden="true" data-testid="slice-overlay" />
            {letters && (
              <div className="rv-letters" aria-hidden="true" data-testid="orientation-letters">
                <span className="rv-l-left">{letters.left}</span>
                <span className="rv-l-right">{letters.right}</span>
                <span className="rv-l-top">{letters.top}</span>
                <span className="rv-l-bottom">{letters.bottom}</span>
              </div>
            )}
            {preview?.scaleUnknown ? (
              <span className="rv-scale rv-scale-unknown" data-testid="scale-bar">
                No scale: the scan states no pixel size
              </span>
            ) : (
              bar && (
                <span className="rv-scale" data-testid="scale-bar">
                  <span className="rv-scale-bar" style={{ width: bar.px }} />
                  {bar.mm >= 1 ? bar.mm : bar.mm.toFixed(1)} mm
                </span>
              )
            )}
          </div>
        </div>
        {!preview && (
          <span className="rv-wait">{props.failed ? 'No slice to show: see below.' : 'Loading slice…'}</span>
        )}
      </div>
    </div>
  );
}
