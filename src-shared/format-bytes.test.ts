import { describe, expect, it } from 'vitest';
import { formatBytes } from './format-bytes';

describe('formatBytes', () => {
  it('names binary units as such, with one decimal at most', () => {
    expect(formatBytes(0)).toBe('0 bytes');
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(1023)).toBe('1023 bytes');
    expect(formatBytes(1024)).toBe('1 KiB');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(72 * 1024 * 1024 + 300_000)).toBe('72.3 MiB');
    expect(formatBytes(2 ** 30)).toBe('1 GiB');
    expect(formatBytes(3 * 2 ** 40)).toBe('3 TiB');
  });

  it('moves to the next unit when rounding reaches it', () => {
    expect(formatBytes(1024 * 1024 - 10)).toBe('1 MiB');
  });

  it('shows a dash for what is no size', () => {
    expect(formatBytes(-1)).toBe('—');
    expect(formatBytes(Number.NaN)).toBe('—');
    expect(formatBytes(Number.POSITIVE_INFINITY)).toBe('—');
  });
});
