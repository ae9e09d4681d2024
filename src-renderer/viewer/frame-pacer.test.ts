import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FramePacer } from './frame-pacer.js';

/** Animation frames run by hand: `frame()` runs every callback requested so far, as one frame. */
let callbacks: Map<number, FrameRequestCallback>;
let nextId: number;
let log: string[];

function frame(): void {
  const now = callbacks;
  callbacks = new Map();
  log.push('frame');
  for (const cb of now.values()) cb(performance.now());
  log.push('frame end');
}

beforeEach(() => {
  callbacks = new Map();
  nextId = 0;
  log = [];
  vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => {
    callbacks.set(++nextId, cb);
    return nextId;
  });
  vi.stubGlobal('cancelAnimationFrame', (id: number) => callbacks.delete(id));
});

afterEach(() => vi.unstubAllGlobals());

describe('FramePacer', () => {
  it('steps inside the next frame, once however often it was asked', () => {
    let steps = 0;
    const pacer = new FramePacer(() => {
      log.push('step');
      steps++;
    });
    pacer.schedule();
    pacer.schedule();
    expect(steps).toBe(0);
    frame();
    expect(log).toEqual(['frame', 'step', 'frame end']);
    expect(steps).toBe(1);
    frame();
    expect(steps).toBe(1);
    // Asked again after its step: one more, in the next frame.
    pacer.schedule();
    frame();
    expect(steps).toBe(2);
    pacer.stop();
  });

  it('takes no step once stopped, nor when asked afterwards', () => {
    const step = vi.fn();
    const pacer = new FramePacer(step);
    pacer.schedule();
    pacer.stop();
    frame();
    pacer.schedule();
    frame();
    expect(step).not.toHaveBeenCalled();
  });
});
