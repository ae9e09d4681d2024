/** How a file's bytes start, when they look like DICOM at all. */
export type DicomLayout =
  /** 128-byte preamble, "DICM", then the meta header. */
  | 'part10'
  /** No preamble: the meta group (0002,xxxx) comes first, explicit VR little endian. */
  | 'raw-meta'
  /** No preamble and no meta header: the data set itself, explicit VR little endian. */
  | 'raw-explicit'
  /** No preamble and no meta header: the data set itself, implicit VR little endian. */
  | 'raw-implicit'
  /** No preamble and no meta header: the data set itself, explicit VR big endian (retired, still met). */
  | 'raw-explicit-be';

/** Enough bytes to tell DICOM from anything else. */
export const SNIFF_BYTES = 512;

const VRS = new Set(
  'AE AS AT CS DA DS DT FL FD IS LO LT OB OD OF OL OV OW PN SH SL SQ SS ST SV TM UC UI UL UN UR US UT UV'.split(
    ' ',
  ),
);

/** VRs whose explicit form has two reserved bytes and a 32-bit length. */
const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV']);

export function isVr(b: Uint8Array, at: number): boolean {
  const a = b[at];
  const c = b[at + 1];
  if (a === undefined || c === undefined) return false;
  return VRS.has(String.fromCharCode(a, c));
}

/** A bare data set starts with a low group: the meta group, identification (0008) or, rarely, patient (0010). */
const FIRST_GROUPS = [0x0002, 0x0008, 0x0010];

/**
 * Decides by content, never by name, whether bytes are DICOM and how they are laid out.
 * Files without preamble are accepted only when their first few elements have ascending tags,
 * valid VRs (or plausible implicit lengths) and lengths that fit the file, so random bytes, text
 * and images are not taken for DICOM.
 */
export function sniffDicom(head: Uint8Array, fileSize: number): DicomLayout | null {
  if (
    head.length >= 132 &&
    head[128] === 0x44 &&
    head[129] === 0x49 &&
    head[130] === 0x43 &&
    head[131] === 0x4d
  ) {
    return 'part10';
  }
  if (head.length < 8) return null;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const explicit = isVr(head, 4);
  const group = view.getUint16(0, true);
  if (FIRST_GROUPS.includes(group) && walkElements(head, view, explicit, true, fileSize)) {
    if (group === 0x0002) return explicit ? 'raw-meta' : null;
    return explicit ? 'raw-explicit' : 'raw-implicit';
  }
  // Big endian has no implicit form and its meta header (when present) is little endian.
  const groupBe = view.getUint16(0, false);
  if (explicit && groupBe !== 0x0002 && FIRST_GROUPS.includes(groupBe)) {
    if (walkElements(head, view, true, false, fileSize)) return 'raw-explicit-be';
  }
  return null;
}

/** Walks up to four elements; true when they are well formed and in ascending tag order. */
function walkElements(
  head: Uint8Array,
  view: DataView,
  explicit: boolean,
  le: boolean,
  fileSize: number,
): boolean {
  let pos = 0;
  let lastTag = -1;
  let seen = 0;
  while (seen < 4 && pos + 8 <= view.byteLength) {
    const tag = view.getUint16(pos, le) * 0x10000 + view.getUint16(pos + 2, le);
    if (tag <= lastTag) return false;
    lastTag = tag;
    let length: number;
    let header: number;
    if (explicit) {
      if (!isVr(head, pos + 4)) return false;
      const vr = String.fromCharCode(view.getUint8(pos + 4), view.getUint8(pos + 5));
      if (LONG_VRS.has(vr)) {
        if (pos + 12 > view.byteLength) break;
        length = view.getUint32(pos + 8, le);
        header = 12;
      } else {
        length = view.getUint16(pos + 6, le);
        header = 8;
      }
    } else {
      length = view.getUint32(pos + 4, le);
      header = 8;
    }
    seen++;
    // Undefined length (a sequence): cannot be skipped cheaply; what was seen so far must do.
    if (length === 0xffffffff) break;
    if (pos + header + length > fileSize) return false;
    pos += header + length;
  }
  return seen >= Math.min(2, fileSize >= 16 ? 2 : 1);
}
