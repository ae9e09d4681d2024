import { describe, expect, it } from 'vitest';
import { MAX_IN_FLIGHT, PRESENT_EVERY_MS, offscreenAction } from './offscreen-picture.js';
import type { OffscreenAction } from './offscreen-picture.js';

const at = (over: Partial<Parameters<typeof offscreenAction>[0]>): OffscreenAction =>
  offscreenAction({
    pending: 0,
    issuedAll: false,
    issuedFraction: 0,
    batchesDone: 0,
    sinceShownMs: 0,
    ...over,
  });

/**
 * A picture of `batches` batches stepped once per frame against a rasteriser that takes
 * `framesPerBatch` frames per batch, one batch at a time: what each frame did.
 */
function run(batches: number, framesPerBatch: number, frameMs = 16): OffscreenAction[] {
  const done: number[] = []; // frame at which each handed-over batch is done
  let issued = 0;
  let finished = 0;
  let shownAt = 0;
  const log: OffscreenAction[] = [];
  for (let frame = 1; frame < 1000; frame++) {
    const now = frame * frameMs;
    // Fences report at the frame after the batch finished.
    while (done.length > 0 && done[0]! < frame) {
      done.shift();
      finished++;
    }
    const a = offscreenAction({
      pending: done.length,
      issuedAll: issued === batches,
      issuedFraction: issued / batches,
      batchesDone: finished,
      sinceShownMs: now - shownAt,
    });
    log.push(a);
    if (a === 'issue') {
      const start = Math.max(frame, done[done.length - 1] ?? frame);
      done.push(start + framesPerBatch);
      issued++;
    } else if (a === 'present') shownAt = now;
    else if (a === 'present-complete') return log;
  }
  throw new Error('the picture never completed');
}

describe('offscreenAction', () => {
  it('hands over batches while the rasteriser has room, and waits when it has none', () => {
    expect(at({})).toBe('issue');
    expect(at({ pending: MAX_IN_FLIGHT - 1, batchesDone: 1 })).toBe('issue');
    expect(at({ pending: MAX_IN_FLIGHT })).toBe('wait');
  });

  it('shows the picture only when nothing is pending, and whole once every batch is done', () => {
    expect(at({ pending: 1, issuedAll: true })).toBe('wait');
    expect(at({ pending: 0, issuedAll: true })).toBe('present-complete');
  });

  it('drains and shows a large picture every PRESENT_EVERY_MS while it builds, not near its end', () => {
    const building = { batchesDone: 3, issuedFraction: 0.5, sinceShownMs: PRESENT_EVERY_MS };
    expect(at({ ...building, pending: 1 })).toBe('wait');
    expect(at({ ...building, pending: 0 })).toBe('present');
    // Nothing of this picture done yet: there is nothing to show.
    expect(at({ ...building, pending: 0, batchesDone: 0 })).toBe('issue');
    // Most of it handed over: the whole picture is about to follow.
    expect(at({ ...building, pending: 1, issuedFraction: 0.8 })).toBe('issue');
    expect(at({ ...building, pending: 0, issuedFraction: 0.8 })).toBe('issue');
  });

  it('keeps the rasteriser busy: a picture of 7 batches of 5 frames each takes about 35 frames', () => {
    const log = run(7, 5);
    expect(log.filter((a) => a === 'issue')).toHaveLength(7);
    expect(log.filter((a) => a === 'present')).toHaveLength(0);
    expect(log.length).toBeLessThanOrEqual(7 * 5 + 3);
  });

  it('shows a picture that takes seconds to build a few times on the way, at little cost', () => {
    const log = run(80, 5);
    const presents = log.filter((a) => a === 'present').length;
    // 6.4 s of rasterising: shown about every PRESENT_EVERY_MS, until most of it is handed over.
    expect(presents).toBeGreaterThanOrEqual(3);
    expect(presents).toBeLessThanOrEqual(Math.floor((0.75 * 80 * 5 * 16) / PRESENT_EVERY_MS));
    // Each showing leaves the rasteriser idle a frame or two; nothing else does.
    expect(log.length).toBeLessThanOrEqual(80 * 5 + 2 * presents + 3);
    expect(log[log.length - 1]).toBe('present-complete');
  });
});
