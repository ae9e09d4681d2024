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

/** Lets queued messages (tasks after the frame) run. */
const tasks = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 10));

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
  it('on a GPU steps inside the next frame, once however often it was asked', () => {
    const steps: (number | null)[] = [];
    const pacer = new FramePacer((ms) => {
      log.push('step');
      steps.push(ms);
    }, false);
    pacer.schedule();
    pacer.schedule();
    expect(steps).toEqual([]);
    frame();
    expect(log).toEqual(['frame', 'step', 'frame end']);
    expect(steps).toEqual([null]);
    frame();
    expect(steps).toHaveLength(1);
    pacer.stop();
  });

  it('with a software renderer steps in a task of its own after the frame, with what the frame cost', async () => {
    const steps: (number | null)[] = [];
    const pacer = new FramePacer((ms) => {
      log.push('step');
      steps.push(ms);
    }, true);
    pacer.schedule();
    pacer.schedule();
    frame();
    expect(log).toEqual(['frame', 'frame end']);
    await tasks();
    expect(log).toEqual(['frame', 'frame end', 'step']);
    expect(steps).toHaveLength(1);
    expect(typeof steps[0]).toBe('number');
    // Asked again while its step was queued: one more step, from the next frame.
    pacer.schedule();
    await tasks();
    expect(steps).toHaveLength(1);
    frame();
    await tasks();
    expect(steps).toHaveLength(2);
    pacer.stop();
  });

  it('takes no step once stopped, whether a frame or a task was pending', async () => {
    const step = vi.fn();
    const waiting = new FramePacer(step, true);
    waiting.schedule();
    waiting.stop();
    frame();
    await tasks();
    const queued = new FramePacer(step, true);
    queued.schedule();
    frame();
    queued.stop();
    await tasks();
    queued.schedule();
    frame();
    await tasks();
    expect(step).not.toHaveBeenCalled();
  });
});
