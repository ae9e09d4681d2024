import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { SlicePlane, SlicePreview } from '../../src-shared/scans';
import { WINDOW_PRESETS, dragWindowLevel, presetWindow } from '../scans/preview-pixels';
import type { OutlineMesh } from './outline';
import { useSlicePlanes, type SliceQuad } from './slice-planes-store';
import { PLANE_AXIS, patientToVoxel, pixelToPatient, voxelToPatient, type Vec3 } from './slice-space';
import { SliceView } from './SliceView';
import { useSlice } from './useSlice';
import './review.css';

const PLANES: SlicePlane[] = ['axial', 'coronal', 'sagittal'];

/** The slice image's outer corners in the patient: pixel centres sit half a pixel in. */
function sliceQuad(p: SlicePreview): SliceQuad {
  const g = p.geometry;
  const [w, h] = [p.width - 0.5, p.height - 0.5];
  return [
    pixelToPatient(g, -0.5, -0.5),
    pixelToPatient(g, w, -0.5),
    pixelToPatient(g, w, h),
    pixelToPatient(g, -0.5, h),
  ];
}

interface Contrast {
  window?: number;
  level?: number;
}

/**
 * Axial, coronal and sagittal views of one series, linked by a crosshair: a point chosen in one view
 * sets the slices of the other two. Window and level are shared, from presets, keys or a drag.
 * With meshes, each view draws where they cross its slice, in their colours.
 */
export function SliceReview({
  seriesId,
  label,
  meshes = [],
  enabled = true,
  publishPlanes = false,
}: {
  seriesId: string;
  label: string;
  meshes?: readonly OutlineMesh[];
  enabled?: boolean;
  /** Tell the 3D viewer where the three slices lie (the scan check under the viewer does). */
  publishPlanes?: boolean;
}) {
  // Voxel indices the user chose for the crosshair; until then the middle of the grid.
  const [chosen, setChosen] = useState<Vec3 | null>(null);
  const [contrast, setContrast] = useState<Contrast>({});
  const dragStart = useRef<{ window: number; level: number } | null>(null);

  // The grid is known from the first axial answer (the middle slice); kept once known.
  const [known, setKnown] = useState<SlicePreview | null>(null);
  const voxel = useMemo((): Vec3 | null => {
    if (chosen) return chosen;
    if (!known) return null;
    const [nx, ny, nz] = known.grid.dims;
    return [Math.floor(nx / 2), Math.floor(ny / 2), Math.floor(nz / 2)];
  }, [chosen, known]);
  const wish = (plane: SlicePlane): Parameters<typeof useSlice>[1] => ({
    plane,
    ...(voxel ? { index: Math.round(voxel[PLANE_AXIS[plane]]) } : {}),
    ...contrast,
  });
  const axial = useSlice(seriesId, wish('axial'), enabled);
  // The other two wait for the grid, so all three start on the same point.
  const coronal = useSlice(seriesId, wish('coronal'), enabled && voxel !== null);
  const sagittal = useSlice(seriesId, wish('sagittal'), enabled && voxel !== null);
  const slices: Record<SlicePlane, SlicePreview | null> = {
    axial: axial.preview,
    coronal: coronal.preview,
    sagittal: sagittal.preview,
  };
  const first = axial.preview;
  if (first && known?.seriesId !== first.seriesId) setKnown(first);
  const grid = first?.grid ?? null;

  useEffect(() => {
    if (!publishPlanes) return;
    const { setQuad } = useSlicePlanes.getState();
    for (const plane of PLANES) {
      const p = slices[plane];
      setQuad(plane, p ? sliceQuad(p) : null);
    }
  }, [publishPlanes, axial.preview, coronal.preview, sagittal.preview]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    if (!publishPlanes) return;
    return () => {
      for (const plane of PLANES) useSlicePlanes.getState().setQuad(plane, null);
    };
  }, [publishPlanes]);

  const win = contrast.window ?? first?.window;
  const lev = contrast.level ?? first?.level;
  const cross = grid && voxel ? voxelToPatient(grid, voxel) : null;

  const setPoint = useCallback(
    (plane: SlicePlane, p: Vec3) => {
      if (!grid) return;
      const v = patientToVoxel(grid, p);
      const own = PLANE_AXIS[plane];
      setChosen(() => {
        const cur = voxel;
        if (!cur) return cur;
        const next = v.map((x, a) =>
          a === own ? cur[a]! : Math.min(grid.dims[a]! - 1, Math.max(0, Math.round(x))),
        ) as Vec3;
        return next.every((x, a) => x === cur[a]) ? cur : next;
      });
    },
    [grid, voxel],
  );

  const step = useCallback(
    (plane: SlicePlane, delta: number) => {
      if (!grid) return;
      const a = PLANE_AXIS[plane];
      setChosen(() => {
        const cur = voxel;
        if (!cur) return cur;
        const next = [...cur] as Vec3;
        next[a] = Math.min(grid.dims[a]! - 1, Math.max(0, cur[a]! + delta));
        return next;
      });
    },
    [grid, voxel],
  );
  const steppers = {
    axial: useCallback((d: number) => step('axial', d), [step]),
    coronal: useCallback((d: number) => step('coronal', d), [step]),
    sagittal: useCallback((d: number) => step('sagittal', d), [step]),
  };

  const keyFor = (plane: SlicePlane, key: string): boolean => {
    const count = grid?.dims[PLANE_AXIS[plane]] ?? 0;
    const changeWindow = (f: number): void => {
      if (win !== undefined)
        setContrast((c) => ({ ...c, level: c.level ?? lev, window: Math.max(1, Math.round(win * f)) }));
    };
    const changeLevel = (d: number): void => {
      if (win !== undefined && lev !== undefined)
        setContrast((c) => ({
          ...c,
          window: c.window ?? win,
          level: Math.round(lev + d * Math.max(1, win / 20)),
        }));
    };
    const keys: Record<string, () => void> = {
      ArrowUp: () => step(plane, 1),
      ArrowRight: () => step(plane, 1),
      ArrowDown: () => step(plane, -1),
      ArrowLeft: () => step(plane, -1),
      PageUp: () => step(plane, 10),
      PageDown: () => step(plane, -10),
      Home: () => step(plane, -count),
      End: () => step(plane, count),
      '+': () => changeWindow(1 / 1.25),
      '=': () => changeWindow(1 / 1.25),
      '-': () => changeWindow(1.25),
      '[': () => changeLevel(-1),
      ']': () => changeLevel(1),
      r: () => setContrast({}),
    };
    const run = keys[key];
    run?.();
    return run !== undefined;
  };

  const onContrastDrag = (dx: number, dy: number, phase: 'start' | 'move' | 'end'): void => {
    if (phase === 'start') {
      dragStart.current = win !== undefined && lev !== undefined ? { window: win, level: lev } : null;
      return;
    }
    if (phase === 'end') {
      dragStart.current = null;
      return;
    }
    if (dragStart.current) setContrast(dragWindowLevel(dragStart.current, dx, dy));
  };

  const error = axial.error ?? coronal.error ?? sagittal.error;
  const activePreset = WINDOW_PRESETS.find((p) => {
    if (!first || win === undefined) return false;
    const w = presetWindow(p, first.valueRange);
    return Math.abs(w.window - win) < 0.5 && Math.abs(w.level - (lev ?? 0)) < 0.5;
  });

  return (
    <div className="rv" data-testid="slice-review">
      <div className="rv-tools">
        <div className="rv-presets" role="group" aria-label={`Window presets for ${label}`}>
          {WINDOW_PRESETS.map((p) => (
            <button
              key={p.id}
              type="button"
              className="seg"
              aria-pressed={activePreset?.id === p.id}
              disabled={!first}
              onClick={() => first && setContrast(presetWindow(p, first.valueRange))}
            >
              {p.label}
            </button>
          ))}
        </div>
        <span className="rv-wl" data-testid="window-level">
          {win !== undefined ? `W ${Math.round(win)} · L ${Math.round(lev ?? 0)}` : ''}
        </span>
      </div>
      <div className="rv-views">
        {PLANES.map((plane) => (
          <SliceView
            key={plane}
            scanLabel={label}
            plane={plane}
            preview={slices[plane]}
            cross={cross}
            meshes={meshes}
            onPoint={(p) => setPoint(plane, p)}
            onStep={steppers[plane]}
            onContrastDrag={onContrastDrag}
            onKey={(key) => keyFor(plane, key)}
            failed={error !== null}
          />
        ))}
      </div>
      {error && (
        <p className="problem" role="alert">
          {error.message}
          {error.action ? ` ${error.action}` : ''}
        </p>
      )}
      <p className="hint rv-hint">
        Click or drag to move the crosshair · wheel or ↑ ↓ PgUp PgDn for slices · right-drag or Shift+drag, +
        − [ ] for contrast · R resets
      </p>
    </div>
  );
}
