import { describe, expect, it } from 'vitest';
import { viewUnchanged } from './orientation-marker.js';

describe('viewUnchanged', () => {
  const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

  it('asks for a drawing for the first view, then not again while the view stays', () => {
    const last = new Float64Array(16);
    expect(viewUnchanged(last, identity)).toBe(false);
    expect(viewUnchanged(last, identity)).toBe(true);
    expect(viewUnchanged(last, Float32Array.from(identity))).toBe(true);
  });

  it('asks again when any element of the view changes, and remembers the new view', () => {
    const last = new Float64Array(16);
    viewUnchanged(last, identity);
    const turned = [...identity];
    turned[14] = -250;
    expect(viewUnchanged(last, turned)).toBe(false);
    expect(Array.from(last)).toEqual(turned);
    expect(viewUnchanged(last, turned)).toBe(true);
    expect(viewUnchanged(last, identity)).toBe(false);
  });
});
