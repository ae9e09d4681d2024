import { TAG } from './header-tags.js';
import type { TagTable } from './header-values.js';

/**
 * Pixel Padding Value (0028,0120) and Pixel Padding Range Limit (0028,0121): stored values that mark
 * pixels outside the reconstructed field of view (a small-field dental CBCT pads everything outside
 * its cylinder). Their VR is US or SS as the pixel data is unsigned or signed (Pixel Representation),
 * which a file without explicit VRs does not say otherwise. Undefined when absent; lowest first.
 */
export function pixelPaddingOf(t: TagTable, signed: boolean): [number, number] | undefined {
  const value = short(t, TAG.pixelPaddingValue, signed);
  if (value === undefined) return undefined;
  const limit = short(t, TAG.pixelPaddingRangeLimit, signed) ?? value;
  return [Math.min(value, limit), Math.max(value, limit)];
}

function short(t: TagTable, k: number, signed: boolean): number | undefined {
  const at = t.offset[k]!;
  if (at < 0 || t.length[k]! < 2 || at + 2 > t.bytes.length) return undefined;
  const b = t.bytes;
  const v = t.bigEndian ? (b[at]! << 8) + b[at + 1]! : b[at]! + b[at + 1]! * 256;
  return signed && v >= 0x8000 ? v - 0x10000 : v;
}
