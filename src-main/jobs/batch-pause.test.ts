import { describe, expect, it } from 'vitest';
import { PauseGate } from './slots.js';

/** Settles pending promise callbacks, so a test sees whether a wait has resolved. */
const flush = () => new Promise((r) => setImmediate(r));

describe('PauseGate per batch', () => {
  it('holds only the waiters of a held batch, and lets them go when it is released', async () => {
    const gate = new PauseGate();
    gate.hold('b1');
    const seen: string[] = [];
    void gate
      .forKey('b1')
      .wait()
      .then(() => seen.push('b1'));
    void gate
      .forKey('b2')
      .wait()
      .then(() => seen.push('b2'));
    void gate
      .forKey(undefined)
      .wait()
      .then(() => seen.push('none'));
    await flush();
    expect(seen.sort()).toEqual(['b2', 'none']);
    expect(gate.isHeld('b1')).toBe(true);
    gate.release('b1');
    await flush();
    expect(seen).toContain('b1');
  });

  it('keeps a held batch waiting when the whole queue resumes', async () => {
    const gate = new PauseGate();
    gate.pause();
    gate.hold('b1');
    const seen: string[] = [];
    void gate.wait(undefined, 'b1').then(() => seen.push('b1'));
    void gate.wait(undefined, 'b2').then(() => seen.push('b2'));
    gate.resume();
    await flush();
    expect(seen).toEqual(['b2']);
    gate.release('b1');
    await flush();
    expect(seen).toEqual(['b2', 'b1']);
  });

  it('rejects a held wait when its job is canceled', async () => {
    const gate = new PauseGate();
    gate.hold('b1');
    const ac = new AbortController();
    const waiting = gate.wait(ac.signal, 'b1');
    ac.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'canceled' });
  });
});

describe('a job’s view of the gate', () => {
  it('blocks while the queue or its own batch is paused, and only then', () => {
    const gate = new PauseGate();
    const mine = gate.forKey('b1');
    const other = gate.forKey('b2');
    expect(mine.blocks()).toBe(false);
    gate.hold('b1');
    expect([mine.blocks(), other.blocks()]).toEqual([true, false]);
    gate.pause();
    expect(other.blocks()).toBe(true);
    gate.resume();
    gate.release('b1');
    expect([mine.blocks(), other.blocks()]).toEqual([false, false]);
  });
});
