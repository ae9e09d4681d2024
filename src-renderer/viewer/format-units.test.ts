import { describe, expect, it } from 'vitest';
import { formatCount, formatMm, formatSize, formatTriangles, loadedStatus } from './format-units.js';

describe('units', () => {
  it('shows lengths with precision that fits their size', () => {
    expect(formatMm(155.23)).toBe('155.2');
    expect(formatMm(4.256)).toBe('4.26');
    expect(formatMm(0.15567)).toBe('0.156');
    expect(formatMm(0)).toBe('0');
  });

  it('groups thousands as en-US does', () => {
    for (const n of [0, 7, 999, 1000, 1368, 69_451, 399_757, 1_234_567, 12_345_678_901, -4200]) {
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
    }
  });

  it('words the status line', () => {
    expect(formatTriangles(1)).toBe('1 triangle');
    expect(loadedStatus('m.stl', 69_451, [0, 0, 0, 155.2, 153.6, 120])).toBe(
      'Loaded m.stl: 69,451 triangles, 155.2 x 153.6 x 120.0 mm',
    );
    expect(formatSize([-1, -1, -1, 1, 1, 1])).toBe('2.00 x 2.00 x 2.00 mm');
  });
});
