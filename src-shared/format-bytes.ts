/**
 * A size as people read it, in the app, the command line and every message: binary units named as
 * such (1 KiB = 1024 bytes), one decimal at most ("1 GiB", "72.3 MiB", "512 bytes"). One function, so
 * that a limit in an error and the size beside a file never disagree; '—' for what is no size.
 */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '—';
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  if (n < 1024) return `${n} bytes`;
  let v = n / 1024;
  let u = 0;
  // Rounded before the unit is chosen, so that 1023.96 KiB reads "1 MiB", never "1024 KiB".
  while (Number(v.toFixed(1)) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${Number(v.toFixed(1))} ${units[u]}`;
}
