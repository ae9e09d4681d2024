import { describe, expect, it } from 'vitest';
import { writeShifted, type StoredValues } from './plane-copy.js';

/** The definition, one sample at a time: what every path of writeShifted must equal. */
function reference(
  stored: StoredValues,
  shift: number,
  n: number,
  storedBits: number,
  signed: boolean,
): { values: number[]; fits: boolean } {
  const bits = stored.BYTES_PER_ELEMENT * 8;
  const values: number[] = [];
  let fits = true;
  for (let i = 0; i < n; i++) {
    let v = stored[i] as number;
    if (storedBits < bits) {
      v &= 2 ** storedBits - 1;
      if (signed && v >= 2 ** (storedBits - 1)) v -= 2 ** storedBits;
    }
    const w = v + shift;
    if (w < -32768 || w > 32767) fits = false;
    values.push((w << 16) >> 16);
  }
  return { values, fits };
}

/** Deterministic samples that reach the ends of their range, where overflows happen. */
function samples(n: number, seed: number): Uint16Array {
  const out = new Uint16Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const edge = [0, 1, 0x7fff, 0x8000, 0xffff, 0x0fff, 0x0800][(x >>> 3) % 7] as number;
    out[i] = (x >>> 8) % 4 === 0 ? edge : x & 0xffff;
  }
  return out;
}

describe('writeShifted', () => {
  it('equals the definition for 16-bit samples, two at a time or one, with and without overflow', () => {
    const cases: { storedBits: number; signed: boolean }[] = [
      { storedBits: 16, signed: true },
      { storedBits: 12, signed: false },
      { storedBits: 15, signed: false },
      { storedBits: 16, signed: false },
      { storedBits: 12, signed: true },
    ];
    const shifts = [0, -1024, 1024, -32768, 32767, -1, 31000, -31000];
    let overflowed = 0;
    let fitted = 0;
    for (const [c, { storedBits, signed }] of cases.entries()) {
      for (const [j, shift] of shifts.entries()) {
        for (const n of [0, 1, 7, 8, 1001]) {
          // Both aligned to 4 bytes (two at a time), and either one sample off (one at a time).
          for (const [srcOff, outOff] of [
            [0, 0],
            [1, 0],
            [0, 1],
          ] as const) {
            const raw = samples(n + 2, 97 * c + 13 * j + n);
            const buf = new Uint8Array(2 * (n + 2) + 4);
            const b16 = new Uint16Array(buf.buffer, 0, n + 2);
            b16.set(raw);
            const view = signed
              ? new Int16Array(buf.buffer, srcOff * 2, n)
              : new Uint16Array(buf.buffer, srcOff * 2, n);
            // Some cases only: each sample within its stored bits, so that small shifts fit.
            if (j % 2 === 0 && storedBits < 16)
              for (let i = 0; i < n; i++) view[i] = (view[i] as number) & (2 ** (storedBits - 1) - 1);
            const out = new Int16Array(n + 5).fill(0x5555);
            const ok = writeShifted(view, shift, out, 2 + outOff, n, storedBits, signed);
            const want = reference(view, shift, n, storedBits, signed);
            expect(ok).toBe(want.fits);
            expect(Array.from(out.subarray(2 + outOff, 2 + outOff + n))).toEqual(want.values);
            // Nothing outside the plane is written.
            expect(out[1 + outOff]).toBe(0x5555);
            expect(out[2 + outOff + n]).toBe(0x5555);
            if (n > 0 && ok) fitted++;
            else if (n > 0) overflowed++;
          }
        }
      }
    }
    // Both outcomes were met, so both were checked.
    expect(overflowed).toBeGreaterThan(20);
    expect(fitted).toBeGreaterThan(20);
  });
});
