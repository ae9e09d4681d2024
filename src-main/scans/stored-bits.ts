import { AppError } from '../../src-shared/errors.js';

/** A frame's stored samples, as a typed array of their width and sign. */
export type StoredValues = Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array;

/**
 * Samples wider than their Bits Stored. DICOM reads a sample from its Bits Stored low bits (the bits
 * above are zero, or copies of the sign); pydicom reads the whole sample. Where a file's samples use
 * bits above, the two readings differ by thousands: enamel or metal past 4095 in a file that says 12
 * bits became air when masked (a review). Neither reading is known to be the scanner's, so the scan is
 * refused rather than read by a guess. The declared padding is left out: a padding value below what
 * the stored bits can hold (-3024 with 12 signed bits) is a writer's habit, and is padding either way.
 */

/**
 * Whether the first n samples hold bits above `storedBits` that are not the sign's, other than the
 * padding values `padding` (stored values, inclusive). Unsigned samples: any bit above. Signed ones:
 * the bits above are all zero or all copies of the top stored bit (writers do both: DICOM leaves them
 * unused), but not both in one frame (a negative written without its sign beside one written with it
 * is a value too wide for its bits), nor anything else.
 */
export function bitsAboveStored(
  stored: StoredValues,
  n: number,
  storedBits: number,
  signed: boolean,
  padding?: readonly [number, number],
  /** Bits above Bits Stored that hold overlays (retired Overlay Bit Position): not values. */
  overlays = 0,
): boolean {
  const width = stored.BYTES_PER_ELEMENT * 8;
  if (storedBits <= 0 || storedBits >= width) return false;
  if (!signed && stored.BYTES_PER_ELEMENT === 2 && stored.byteOffset % 4 === 0) {
    // The common case (unsigned 12 of 16 bits): every word or'ed, two samples at a time; the samples
    // are looked at one by one only when some bit above is set.
    const words = new Uint32Array(stored.buffer, stored.byteOffset, n >>> 1);
    let all = n % 2 === 1 ? (stored[n - 1] as number) : 0;
    for (let i = 0; i < words.length; i++) all |= words[i] as number;
    const mask = (2 ** storedBits - 1) | overlays;
    if ((all & ~(mask | (mask << 16))) === 0) return false;
  }
  const up = 32 - width;
  const [lo, hi] = padding ?? [1, 0];
  const sign = storedBits - 1;
  // Signed: the sample shifted down to its top stored bit is 0 (a positive value), -1 (a negative one
  // with its sign above), or 1 (a negative one with zeros above).
  let extended = false;
  let bare = false;
  for (let i = 0; i < n; i++) {
    const raw = stored[i] as number;
    if (raw >= lo && raw <= hi) continue;
    // Overlay bits cleared, the sample read again as its type reads it.
    const v = overlays === 0 ? raw : signed ? ((raw & ~overlays) << up) >> up : (raw & ~overlays) >>> 0;
    const top = signed ? v >> sign : v >>> storedBits;
    if (top === 0) continue;
    if (!signed) return true;
    if (top === -1) extended = true;
    else if (top === 1) bare = true;
    else return true;
    if (extended && bare) return true;
  }
  return false;
}

/** The refusal of a file whose samples are wider than its Bits Stored (see bitsAboveStored). */
export function widerThanStored(file: string, bitsStored: number): AppError {
  return new AppError(
    'bad-input',
    `${file} holds values wider than its Bits Stored (${bitsStored} bits): read as DICOM says, their top bits are dropped and dense tissue or metal becomes another value (enamel can become air); read whole, as some readers do, the header is wrong. Either reading would be a guess, so no model is made.`,
    {
      action:
        'Export the scan again from the scanner or archive with a Bits Stored that covers its values, or ask its maker.',
    },
  );
}
