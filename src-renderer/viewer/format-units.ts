/** Numbers as the viewer shows them: thousands separated, lengths in mm with sensible precision. */
export function formatCount(n: number): string {
  // Grouped by hand, as toLocaleString('en-US') would: a page's first toLocaleString loads ICU
  // number data, ~100 ms of main thread just as a loaded mesh is about to be drawn.
  const [whole, fraction] = String(Math.abs(n)).split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+$)/g, ',');
  return `${n < 0 ? '-' : ''}${grouped}${fraction ? `.${fraction}` : ''}`;
}

/** 155.2 (mm-sized anatomy), 4.25, 0.155 (a mesh in metres shows as tiny, not as 0.2). */
export function formatMm(v: number): string {
  const a = Math.abs(v);
  if (a >= 10) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  if (a === 0) return '0';
  return v.toPrecision(3);
}

function boxSize(bounds: readonly number[]): [number, number, number] {
  return [bounds[3]! - bounds[0]!, bounds[4]! - bounds[1]!, bounds[5]! - bounds[2]!];
}

/** "155.2 x 153.6 x 120.0 mm": extent along x (left-right), y (front-back), z (up-down). */
export function formatSize(bounds: readonly number[]): string {
  return `${boxSize(bounds).map(formatMm).join(' x ')} mm`;
}

export function formatTriangles(n: number): string {
  return `${formatCount(n)} ${n === 1 ? 'triangle' : 'triangles'}`;
}

export function loadedStatus(name: string, triangles: number, bounds: readonly number[]): string {
  return `Loaded ${name}: ${formatTriangles(triangles)}, ${formatSize(bounds)}`;
}
