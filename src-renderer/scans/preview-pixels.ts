/** Turns a preview's base64 grey bytes into RGBA for a canvas; checks the size so a short answer cannot smear. */
export function greyToRgba(base64: string, width: number, height: number): Uint8ClampedArray<ArrayBuffer> {
  const bin = atob(base64);
  const n = width * height;
  if (bin.length !== n)
    throw new Error(`The preview has ${bin.length} pixels where ${width} x ${height} = ${n} were expected.`);
  const out = new Uint8ClampedArray(new ArrayBuffer(n * 4));
  for (let i = 0, o = 0; i < n; i++, o += 4) {
    const v = bin.charCodeAt(i);
    out[o] = v;
    out[o + 1] = v;
    out[o + 2] = v;
    out[o + 3] = 255;
  }
  return out;
}

/**
 * Dragging changes window and level at a rate tied to the window width where the drag started:
 * one pixel sideways scales the width by 0.5% (so it never reaches zero and 80 px is a gentle 50%
 * change), one pixel down raises the level by 0.5% of the width. Fine and coarse windows feel alike.
 */
const DRAG_RATE = 0.005;
export function dragWindowLevel(
  start: { window: number; level: number },
  dx: number,
  dy: number,
): { window: number; level: number } {
  const window = Math.max(1, start.window * Math.pow(1 + DRAG_RATE, dx));
  const level = start.level + dy * start.window * DRAG_RATE;
  // Whole units for wide windows (HU); a narrow window on small values keeps a decimal.
  const round = (v: number): number => (start.window >= 20 ? Math.round(v) : Math.round(v * 10) / 10);
  return { window: Math.max(1, round(window)), level: round(level) };
}

interface WindowPreset {
  id: string;
  label: string;
  /** Width and centre in HU; 'full' spans the scan's whole value range. */
  window: number | 'full';
  level: number;
}

/** Presets as CT viewers name them; dental/implant is wide enough to tell titanium from enamel. */
export const WINDOW_PRESETS: readonly WindowPreset[] = [
  { id: 'bone', label: 'Bone', window: 2000, level: 500 },
  { id: 'soft', label: 'Soft tissue', window: 400, level: 40 },
  { id: 'dental', label: 'Dental / implant', window: 4000, level: 1000 },
  { id: 'full', label: 'Full range', window: 'full', level: 0 },
];

/** Window and level of a preset for a scan whose values span `range`. */
export function presetWindow(
  preset: WindowPreset,
  range: readonly [number, number],
): { window: number; level: number } {
  if (preset.window !== 'full') return { window: preset.window, level: preset.level };
  const width = Math.max(1, range[1] - range[0]);
  return { window: width, level: range[0] + width / 2 };
}
