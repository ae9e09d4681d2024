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

/** Width / height of the preview as it should look, from its pixel size in mm. */
export function displayAspect(width: number, height: number, spacing: readonly [number, number]): number {
  const w = width * (spacing[0] > 0 ? spacing[0] : 1);
  const h = height * (spacing[1] > 0 ? spacing[1] : 1);
  return h > 0 ? w / h : 1;
}

/** Dragging changes the window in proportion to its width, so fine and coarse windows both feel right. */
export function dragWindowLevel(
  start: { window: number; level: number },
  dx: number,
  dy: number,
): { window: number; level: number } {
  const step = Math.max(start.window / 256, 0.5);
  return {
    window: Math.max(1, Math.round(start.window + dx * step * 2)),
    level: Math.round(start.level + dy * step * 2),
  };
}
