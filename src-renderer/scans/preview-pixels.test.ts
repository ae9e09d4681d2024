import { describe, expect, it } from 'vitest';
import { displayAspect, dragWindowLevel, greyToRgba } from './preview-pixels';

describe('preview pixels', () => {
  it('expands grey to opaque RGBA', () => {
    const b64 = btoa(String.fromCharCode(0, 128, 255, 7));
    expect([...greyToRgba(b64, 2, 2)]).toEqual([
      0, 0, 0, 255, 128, 128, 128, 255, 255, 255, 255, 255, 7, 7, 7, 255,
    ]);
  });
  it('refuses a preview whose size does not match', () => {
    expect(() => greyToRgba(btoa('abc'), 2, 2)).toThrow(/3 pixels where 2 x 2 = 4/);
  });
  it('keeps the anatomy in proportion', () => {
    expect(displayAspect(512, 140, [0.451, 1])).toBeCloseTo((512 * 0.451) / 140);
    expect(displayAspect(10, 10, [0, 0])).toBe(1);
  });
  it('widens the window to the right and raises the level downwards, never below 1', () => {
    expect(dragWindowLevel({ window: 2560, level: 400 }, 10, -5)).toEqual({ window: 2760, level: 300 });
    expect(dragWindowLevel({ window: 10, level: 0 }, -100, 0).window).toBe(1);
  });
});
