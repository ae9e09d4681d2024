import { describe, expect, it } from 'vitest';
import { bitsAboveStored, keepPadding, PADDING_WIDER, STORED_FIT, WIDER } from './stored-bits.js';

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
      expect(bitsAboveStored(view, n, 12, false)).toBe(STORED_FIT);
      view[n - 1] = 4096;
      expect(bitsAboveStored(view, n, 12, false)).toBe(WIDER);
      // Only the samples given are read.
      expect(bitsAboveStored(view, n - 1, 12, false)).toBe(STORED_FIT);
      view[n - 1] = 0;
      view[n >> 1] = 0x8000;
      expect(bitsAboveStored(view, n, 12, false)).toBe(WIDER);
      expect(bitsAboveStored(view, n, 16, false)).toBe(STORED_FIT);
    }
    expect(bitsAboveStored(new Uint8Array([0x7f, 0x80]), 2, 7, false)).toBe(WIDER);
  });

  it('takes signed samples that carry their sign above, and no others', () => {
    const s = (values: number[]): Int16Array => new Int16Array(values);
    // Sign-extended: -1024 is 0xFC00.
    expect(bitsAboveStored(s([-1024, 1000, -2048, 2047]), 4, 12, true)).toBe(STORED_FIT);
    // Zeros above a negative (-1 written as 0x0FFF): read as DICOM says it is -1, read whole 4095; a
    // review's signed 12-bit file of positive values to 4010 was read as values below air.
    expect(bitsAboveStored(s([0x0fff, 1000]), 2, 12, true)).toBe(WIDER);
    expect(bitsAboveStored(s([-1024, 3000]), 2, 12, true)).toBe(WIDER);
    // Neither zeros nor the sign above.
    expect(bitsAboveStored(s([0x1001]), 1, 12, true)).toBe(WIDER);
    expect(bitsAboveStored(s([-3024, 100]), 2, 12, true)).toBe(WIDER);
  });

  it('lets the declared padding value alone be wider, and no padding range', () => {
    expect(bitsAboveStored(new Int16Array([-3024, -1024, 100]), 3, 12, true, [-3024, -3024])).toBe(
      PADDING_WIDER,
    );
    expect(bitsAboveStored(new Uint16Array([0xffff, 4095, 0]), 3, 12, false, [0xffff, 0xffff])).toBe(
      PADDING_WIDER,
    );
    expect(bitsAboveStored(new Uint16Array([0xffff, 4097, 0]), 3, 12, false, [0xffff, 0xffff])).toBe(WIDER);
    // A range declared padding (a review: 4096-8191, to pass enamel at 4296 through, masked).
    expect(bitsAboveStored(new Uint16Array([4296, 0]), 2, 12, false, [4096, 8191])).toBe(WIDER);
  });

  it('writes the padding value whole where it stands', () => {
    const out = new Int16Array([1, 2, 3]);
    expect(keepPadding(new Int16Array([-3024, 5, -3024]), 3, -3024, out, 0, 1, 0)).toBe(true);
    expect(Array.from(out)).toEqual([-3024, 2, -3024]);
    // Past the int16 range: the caller reads the volume as floats.
    expect(keepPadding(new Uint16Array([0xf000]), 1, 0xf000, new Int16Array(1), 0, 1, -1024)).toBe(false);
  });
});
