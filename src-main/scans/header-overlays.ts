import type { DataSet } from 'dicom-parser';
import type { DicomHeader } from './header-types.js';
import { overlayTags } from './header-tags.js';
import { us, type TagTable } from './header-values.js';

type Image = Pick<DicomHeader, 'rows' | 'columns' | 'bitsAllocated' | 'bitsStored'>;

/** What an overlay group (g: 0..15, group 6000 + 2g) declares: its one-value US elements, and its data. */
interface OverlayGroups {
  one(g: number, element: 'rows' | 'columns' | 'bits' | 'at'): number | undefined;
  hasData(g: number): boolean;
}

/**
 * The bits above Bits Stored that overlays in the pixel data hold, as a mask: groups 6000-601E that
 * declare a whole overlay there (its rows and columns the image's, its Overlay Bits Allocated the
 * image's, its bit above the stored bits, each one value) and no Overlay Data of their own. The one
 * rule for the header reader and de-identification (a review found them reading it apart).
 */
function overlayMask(o: OverlayGroups, h: Image): number {
  let mask = 0;
  for (let g = 0; g < 16; g++) {
    const at = o.one(g, 'at');
    if (
      at !== undefined &&
      at >= h.bitsStored &&
      at < h.bitsAllocated &&
      o.one(g, 'bits') === h.bitsAllocated &&
      o.one(g, 'rows') === h.rows &&
      o.one(g, 'columns') === h.columns &&
      !o.hasData(g)
    )
      mask |= 2 ** at;
  }
  return mask;
}

/** overlayMask of a header read by the tag-only reader. */
export function overlayBitsOf(t: TagTable, h: Image): number {
  return overlayMask(
    {
      one: (g, e) => {
        const k = overlayTags(g)[e];
        return t.length[k] === 2 ? us(t, k) : undefined;
      },
      hasData: (g) => t.offset[overlayTags(g).data]! >= 0,
    },
    h,
  );
}

const ELEMENT = { rows: 0x0010, columns: 0x0011, bits: 0x0100, at: 0x0102, data: 0x3000 } as const;
const tagOf = (g: number, e: number): string =>
  `x${(0x6000 + 2 * g).toString(16)}${e.toString(16).padStart(4, '0')}`;

/** overlayMask of a data set dicom-parser read (de-identification's). */
export function overlayBitsOfDataSet(ds: DataSet, h: Image): number {
  return overlayMask(
    {
      one: (g, e) => {
        const tag = tagOf(g, ELEMENT[e]);
        return ds.elements[tag]?.length === 2 ? ds.uint16(tag) : undefined;
      },
      hasData: (g) => ds.elements[tagOf(g, ELEMENT.data)] !== undefined,
    },
    h,
  );
}
