import { describe, expect, it, vi } from 'vitest';
import { lazyScreen, preloadWhenIdle } from './lazy-screen';

const Screen = () => null;

describe('lazyScreen', () => {
  it('loads the code once, however often it is preloaded', async () => {
    const load = vi.fn(() => Promise.resolve(Screen));
    const s = lazyScreen(load);
    expect(load).not.toHaveBeenCalled();
    const [a, b] = [s.preload(), s.preload()];
    expect(a).toBe(b);
    await expect(a).resolves.toBe(Screen);
    await s.preload();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('tries again after a failed load, instead of keeping the failure', async () => {
    const load = vi
      .fn<() => Promise<typeof Screen>>()
      .mockRejectedValueOnce(new Error('offline'))
      .mockResolvedValue(Screen);
    const s = lazyScreen(load);
    await expect(s.preload()).rejects.toThrow('offline');
    await expect(s.preload()).resolves.toBe(Screen);
    expect(load).toHaveBeenCalledTimes(2);
  });
});

describe('preloadWhenIdle', () => {
  it('loads the screens one after the other, each when idle, past one that fails', async () => {
    const order: string[] = [];
    const screen = (name: string, fails = false) =>
      lazyScreen(() => {
        order.push(name);
        return fails ? Promise.reject(new Error(name)) : Promise.resolve(Screen);
      });
    const idle: (() => void)[] = [];
    vi.stubGlobal('requestIdleCallback', (run: () => void) => idle.push(run));
    try {
      preloadWhenIdle([screen('jobs'), screen('connections', true), screen('settings')]);
      expect(order).toEqual([]);
      for (let i = 0; i < 3; i++) {
        expect(idle).toHaveLength(1);
        idle.shift()!();
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      expect(order).toEqual(['jobs', 'connections', 'settings']);
      expect(idle).toHaveLength(0);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
