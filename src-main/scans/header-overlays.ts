import type { DicomHeader } from './header-types.js';
import { overlayTags } from './header-tags.js';
import { us, type TagTable } from './header-values.js';

/**
 * The bits above Bits Stored that overlays in the pixel data hold, as a mask: groups 6000-601E that
 * declare a whole overlay there (its rows and columns the image's, its Overlay Bits Allocated the
 * image's, its bit above the stored bits, each one value) and no Overlay Data of their own.
 */
export function overlayBitsOf(
  t: TagTable,
  h: Pick<DicomHeader, 'rows' | 'columns' | 'bitsAllocated' | 'bitsStored'>,
): number {
  const one = (k: number): number | undefined => (t.length[k] === 2 ? us(t, k) : undefined);
  let mask = 0;
  for (let g = 0; g < 16; g++) {
    const o = overlayTags(g);
    const at = one(o.at);
    if (
      at !== undefined &&
      at >= h.bitsStored &&
      at < h.bitsAllocated &&
      one(o.bits) === h.bitsAllocated &&
      one(o.rows) === h.rows &&
      one(o.columns) === h.columns &&
      t.offset[o.data]! < 0
    )
      mask |= 2 ** at;
  }
  return mask;
}
