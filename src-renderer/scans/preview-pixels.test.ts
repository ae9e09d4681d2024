import { describe, expect, it } from 'vitest';
import { WINDOW_PRESETS, dragWindowLevel, greyToRgba, presetWindow } from './preview-pixels';

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
  it('widens the window to the right and raises the level downwards, never below 1', () => {
    // 10 px right widens by about 5%, 5 px up lowers the level by 2.5% of the width.
    expect(dragWindowLevel({ window: 2560, level: 400 }, 10, -5)).toEqual({ window: 2691, level: 336 });
    // The 80 px drag: the window changes by half, never to black.
    const after80 = dragWindowLevel({ window: 2000, level: 500 }, -80, 0);
    expect(after80.window).toBeGreaterThan(1000);
    expect(after80.window).toBeLessThan(1400);
    expect(dragWindowLevel({ window: 2000, level: 500 }, 0, 80).level).toBe(1300);
    expect(dragWindowLevel({ window: 10, level: 0 }, -2000, 0).window).toBe(1);
  });
  it('turns presets into window and level, full range from the scan', () => {
    const full = WINDOW_PRESETS.find((p) => p.id === 'full')!;
    expect(presetWindow(full, [-1024, 3071])).toEqual({ window: 4095, level: 1023.5 });
    expect(
      presetWindow(
        WINDOW_PRESETS.find((p) => p.id === 'bone')!,
        [0, 1],
      ),
    ).toEqual({ window: 2000, level: 500 });
  });
});
