import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchSilence } from './silence-watchdog';

const QUIET = 20_000;

describe('the watchdog of a stream that may go silent without closing', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
  afterEach(() => vi.useRealTimers());

  it('says so once when nothing came for the whole spell', () => {
    const silent = vi.fn();
    watchSilence(QUIET, silent);
    vi.advanceTimersByTime(QUIET - 1);
    expect(silent).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(silent).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10 * QUIET);
    expect(silent).toHaveBeenCalledTimes(1);
  });

  it('stays quiet while something keeps coming, however long, and names when it last came', () => {
    const silent = vi.fn();
    const dog = watchSilence(QUIET, silent);
    for (let i = 0; i < 100; i++) {
      vi.advanceTimersByTime(QUIET - 1);
      dog.feed();
    }
    const last = Date.now();
    expect(silent).not.toHaveBeenCalled();
    vi.advanceTimersByTime(QUIET);
    expect(silent).toHaveBeenCalledTimes(1);
    expect(silent).toHaveBeenCalledWith(last);
  });

  it('says nothing once stopped', () => {
    const silent = vi.fn();
    const dog = watchSilence(QUIET, silent);
    dog.stop();
    dog.feed();
    vi.advanceTimersByTime(10 * QUIET);
    expect(silent).not.toHaveBeenCalled();
  });

  it('gives one more spell when the page itself stood still past the check, then says so', () => {
    const silent = vi.fn();
    watchSilence(QUIET, silent);
    // The page slept (or ran a long task): the clock moved on without the check getting its turn.
    vi.setSystemTime(Date.now() + 5 * QUIET);
    vi.advanceTimersByTime(QUIET);
    expect(silent).not.toHaveBeenCalled();
    vi.advanceTimersByTime(QUIET);
    expect(silent).toHaveBeenCalledTimes(1);
  });
});
