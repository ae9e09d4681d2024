/** Numbers and dates the way the app shows them: short, unambiguous, the same everywhere. */

export { formatBytes } from '../../src-shared/format-bytes';

/** "0:07", "12:04", "1:02:09": elapsed time as a clock reads it. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** Millimetres with enough digits for voxel spacings (0.451) without noise (1.000 → 1). */
export function formatMm(v: number): string {
  if (!Number.isFinite(v)) return '?';
  return String(Number(v.toFixed(v >= 10 ? 1 : 3)));
}

/** DICOM dates are YYYYMMDD; shown as ISO dates, which every clinic reads the same way. */
export function formatDicomDate(d: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(d.trim());
  return m ? `${m[1]}-${m[2]}-${m[3]}` : d.trim();
}

/** DICOM person names separate parts with ^ (Family^Given^Middle^Prefix^Suffix). */
export function formatPersonName(n: string): string {
  const parts = n
    .split('=')[0]!
    .split('^')
    .map((p) => p.trim());
  const [family = '', given = '', middle = '', prefix = '', suffix = ''] = parts;
  const first = [prefix, given, middle].filter(Boolean).join(' ');
  const text = [family, first].filter(Boolean).join(', ') + (suffix ? ` ${suffix}` : '');
  return text || 'Unnamed';
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The last part of a path, whichever separator the platform uses. */
export function baseName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? path;
}
