import { describe, expect, it } from 'vitest';
import { PauseGate, PrioritySlots } from './slots.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('PrioritySlots', () => {
  it('never hands out more slots than the limit', async () => {
    const slots = new PrioritySlots(2, 'upload');
    const got: string[] = [];
    const releases = new Map<string, () => void>();
    for (const id of ['a', 'b', 'c', 'd'])
      void slots.acquire(id, 0).then((release) => {
        got.push(id);
        releases.set(id, release);
      });
    await tick();
    await tick();
    expect(got).toEqual(['a', 'b']);
    releases.get('a')!();
    releases.get('a')!(); // a second release of the same slot frees nothing more
    await tick();
    expect(got).toEqual(['a', 'b', 'c']);
    expect(slots.inUse).toBe(2);
  });

  it('serves higher priority first among those waiting together, then first come', async () => {
    const slots = new PrioritySlots(1, 'prepare');
    const order: string[] = [];
    const take = (id: string, p: number) =>
      slots.acquire(id, p).then((release) => {
        order.push(id);
        setTimeout(release, 1);
      });
    const all = [take('a', 0), take('b', 0), take('c', 5), take('d', 0)];
    slots.reprioritize('d', 9);
    await Promise.all(all);
    expect(order).toEqual(['d', 'c', 'a', 'b']);
  });

  it('drops a waiter whose signal aborts', async () => {
    const slots = new PrioritySlots(1, 'download');
    const first = await slots.acquire('a', 0);
    const ac = new AbortController();
    const waiting = slots.acquire('b', 0, ac.signal);
    ac.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'canceled' });
    expect(slots.waiting).toBe(0);
    first();
    await expect(slots.acquire('c', 0)).resolves.toBeTypeOf('function');
  });
});

describe('PauseGate', () => {
  it('holds steps while paused and lets them all go on resume', async () => {
    const gate = new PauseGate();
    await gate.wait();
    gate.pause();
    let passed = 0;
    const waits = [gate.wait().then(() => passed++), gate.wait().then(() => passed++)];
    await tick();
    expect(passed).toBe(0);
    gate.resume();
    await Promise.all(waits);
    expect(passed).toBe(2);
  });
});
