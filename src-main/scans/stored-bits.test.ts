import { describe, expect, it } from 'vitest';
import { bitsAboveStored } from './stored-bits.js';

describe('samples wider than Bits Stored', () => {
  it('finds any bit above in unsigned samples, aligned or not, odd counts too', () => {
    const buf = new Uint16Array(1003);
    for (const [offset, n] of [
      [0, 1002],
      [1, 1001],
      [0, 1003],
    ] as const) {
      const view = new Uint16Array(buf.buffer, offset * 2, n);
      view.fill(4095);
      expect(bitsAboveStored(view, n, 12, false)).toBe(false);
      view[n - 1] = 4096;
      expect(bitsAboveStored(view, n, 12, false)).toBe(true);
      // Only the samples given are read.
      expect(bitsAboveStored(view, n - 1, 12, false)).toBe(false);
      view[n - 1] = 0;
      view[n >> 1] = 0x8000;
      expect(bitsAboveStored(view, n, 12, false)).toBe(true);
      expect(bitsAboveStored(view, n, 16, false)).toBe(false);
    }
    expect(bitsAboveStored(new Uint8Array([0x7f, 0x80]), 2, 7, false)).toBe(true);
  });

  it('takes signed samples with their sign above, or zeros above, but not both in one frame', () => {
    const s = (values: number[]): Int16Array => new Int16Array(values);
    // Sign-extended: -1024 is 0xFC00.
    expect(bitsAboveStored(s([-1024, 1000, -2048, 2047]), 4, 12, true)).toBe(false);
    // Zeros above: -1 written as 0x0FFF, -1024 as 0x0C00 (DICOM leaves the bits above unused).
    expect(bitsAboveStored(s([0x0fff, 0x0c00, 1000]), 3, 12, true)).toBe(false);
    // 3000 needs 13 bits: with zeros above it reads as -1096, beside negatives that carry their sign.
    expect(bitsAboveStored(s([-1024, 3000]), 2, 12, true)).toBe(true);
    // Neither zeros nor the sign above.
    expect(bitsAboveStored(s([0x1001]), 1, 12, true)).toBe(true);
    expect(bitsAboveStored(s([-3024, 100]), 2, 12, true)).toBe(true);
  });

  it('leaves the declared padding out', () => {
    expect(bitsAboveStored(new Int16Array([-3024, -1024, 100]), 3, 12, true, [-3024, -3024])).toBe(false);
    expect(bitsAboveStored(new Uint16Array([0xffff, 4095, 0]), 3, 12, false, [0xffff, 0xffff])).toBe(false);
    expect(bitsAboveStored(new Uint16Array([0xffff, 4097, 0]), 3, 12, false, [0xffff, 0xffff])).toBe(true);
  });
});
