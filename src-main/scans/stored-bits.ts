import { AppError } from '../../src-shared/errors.js';

/** A frame's stored samples, as a typed array of their width and sign. */
export type StoredValues = Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array;

/**
 * Samples wider than their Bits Stored. DICOM reads a sample from its Bits Stored low bits; pydicom
 * reads the whole sample. Where a file's samples use bits above (other than copies of a signed
 * value's sign), the two readings differ by thousands: enamel or metal past 4095 in a file that says
 * 12 bits became air when masked, and a signed 12-bit file of positive values to 4010 read as values
 * below air (reviews). Neither reading is known to be the scanner's, so the scan is refused rather than
 * read by a guess. One value is let be: the declared Pixel Padding Value, alone (a writer's -3024
 * with 12 signed bits); it is then read whole wherever it stands (keepPadding), so that it stays the
 * padding the header names. A padding range is not: a review declared 4096-8191 padding to pass
 * enamel at 4296 through, masked.
 */

/** What bitsAboveStored found. */
export const STORED_FIT = 0;
/** Only the declared Pixel Padding Value is wider than the stored bits: read it whole (keepPadding). */
export const PADDING_WIDER = 1;
export const WIDER = 2;
export type StoredFit = typeof STORED_FIT | typeof PADDING_WIDER | typeof WIDER;

/**
 * Whether the first n samples hold bits above `storedBits` other than copies of a signed sample's
 * sign (zeros above a signed negative, as some writers leave them, is the two-readings case too),
 * and whether only the padding value `padding` (a single value: [v, v]) does.
 */
export function bitsAboveStored(
  stored: StoredValues,
  n: number,
  storedBits: number,
  signed: boolean,
  padding?: readonly [number, number],
  /** Bits above Bits Stored that hold overlays (retired Overlay Bit Position): not values. */
  overlays = 0,
): StoredFit {
  const width = stored.BYTES_PER_ELEMENT * 8;
  if (storedBits <= 0 || storedBits >= width) return STORED_FIT;
  if (!signed && stored.BYTES_PER_ELEMENT === 2 && stored.byteOffset % 4 === 0) {
    // The common case (unsigned 12 of 16 bits): every word or'ed, two samples at a time; the samples
    // are looked at one by one only when some bit above is set.
    const words = new Uint32Array(stored.buffer, stored.byteOffset, n >>> 1);
    let all = n % 2 === 1 ? (stored[n - 1] as number) : 0;
    for (let i = 0; i < words.length; i++) all |= words[i] as number;
    const mask = (2 ** storedBits - 1) | overlays;
    if ((all & ~(mask | (mask << 16))) === 0) return STORED_FIT;
  }
  const up = 32 - width;
  const pad = padding && padding[0] === padding[1] ? padding[0] : undefined;
  const sign = storedBits - 1;
  let found: StoredFit = STORED_FIT;
  for (let i = 0; i < n; i++) {
    const raw = stored[i] as number;
    // Overlay bits cleared, the sample read again as its type reads it.
    const v = overlays === 0 ? raw : signed ? ((raw & ~overlays) << up) >> up : (raw & ~overlays) >>> 0;
    // Shifted down past its stored bits: 0 for a value that fits, -1 for a signed negative that
    // carries its sign above.
    const top = signed ? v >> sign : v >>> storedBits;
    if (top === 0 || (signed && top === -1)) continue;
    if (raw !== pad) return WIDER;
    found = PADDING_WIDER;
  }
  return found;
}

/**
 * Writes the padding value whole where it stands in a frame whose other samples were read from their
 * stored bits: out[at + i] = value * slope + intercept. False when that leaves the int16 range.
 */
export function keepPadding(
  stored: StoredValues,
  n: number,
  value: number,
  out: Int16Array | Float32Array,
  at: number,
  slope: number,
  intercept: number,
): boolean {
  const v = value * slope + intercept;
  if (out instanceof Int16Array && (v < -32768 || v > 32767 || !Number.isInteger(v))) return false;
  for (let i = 0; i < n; i++) if ((stored[i] as number) === value) out[at + i] = v;
  return true;
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
