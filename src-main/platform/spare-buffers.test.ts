import { describe, expect, it } from 'vitest';
import { SpareBuffers } from './spare-buffers.js';

describe('SpareBuffers', () => {
  it('hands a kept buffer out again, once, and makes new ones of at least the least size', () => {
    const spares = new SpareBuffers(2, 1024, 4096);
    const a = spares.take(10);
    expect(a.length).toBe(1024);
    spares.give(a);
    expect(spares.take(1000)).toBe(a);
    // Taken: not handed out a second time.
    expect(spares.take(1000)).not.toBe(a);
  });

  it('gives out only a buffer big enough', () => {
    const spares = new SpareBuffers(2, 1024, 8192);
    const small = spares.take(1024);
    const big = spares.take(4096);
    spares.give(small);
    spares.give(big);
    expect(spares.take(2000)).toBe(big);
    expect(spares.take(1024)).toBe(small);
  });

  it('keeps no more than asked, nothing under the least size and nothing over the most', () => {
    const spares = new SpareBuffers(1, 1024, 4096);
    const tooSmall = Buffer.alloc(100);
    const tooBig = Buffer.alloc(8192);
    const first = spares.take(1024);
    const second = spares.take(1024);
    spares.give(tooSmall);
    spares.give(tooBig);
    spares.give(first);
    spares.give(second);
    expect(spares.take(1024)).toBe(first);
    const fresh = spares.take(1024);
    expect([tooSmall, tooBig, second]).not.toContain(fresh);
  });
});
