/**
 * The transfer syntaxes scan2mesh knows by name, and what each means for reading pixel data.
 * A transfer syntax fixes the byte order, whether the VR is spelled out, and how pixels are encoded.
 */
interface TransferSyntaxInfo {
  uid: string;
  name: string;
  /** Pixel data is encapsulated (compressed, or RLE): frames come as fragments. */
  compressed: boolean;
  littleEndian: boolean;
  explicitVr: boolean;
  /** The whole data set after the meta header is deflated (zlib raw). */
  deflated?: boolean;
}

export const IMPLICIT_LE = '1.2.840.10008.1.2';
export const EXPLICIT_LE = '1.2.840.10008.1.2.1';
export const DEFLATED_LE = '1.2.840.10008.1.2.1.99';
export const EXPLICIT_BE = '1.2.840.10008.1.2.2';
export const RLE_LOSSLESS = '1.2.840.10008.1.2.5';
export const JPEG_LOSSLESS_P14 = '1.2.840.10008.1.2.4.57';
export const JPEG_LOSSLESS_SV1 = '1.2.840.10008.1.2.4.70';

const KNOWN: TransferSyntaxInfo[] = [
  {
    uid: IMPLICIT_LE,
    name: 'Implicit VR Little Endian',
    compressed: false,
    littleEndian: true,
    explicitVr: false,
  },
  {
    uid: EXPLICIT_LE,
    name: 'Explicit VR Little Endian',
    compressed: false,
    littleEndian: true,
    explicitVr: true,
  },
  {
    uid: DEFLATED_LE,
    name: 'Deflated Explicit VR Little Endian',
    compressed: false,
    littleEndian: true,
    explicitVr: true,
    deflated: true,
  },
  {
    uid: EXPLICIT_BE,
    name: 'Explicit VR Big Endian',
    compressed: false,
    littleEndian: false,
    explicitVr: true,
  },
  { uid: RLE_LOSSLESS, name: 'RLE Lossless', compressed: true, littleEndian: true, explicitVr: true },
  {
    uid: '1.2.840.10008.1.2.4.50',
    name: 'JPEG Baseline (lossy)',
    compressed: true,
    littleEndian: true,
    explicitVr: true,
  },
  {
    uid: '1.2.840.10008.1.2.4.51',
    name: 'JPEG Extended (lossy)',
    compressed: true,
    littleEndian: true,
    explicitVr: true,
  },
  { uid: JPEG_LOSSLESS_P14, name: 'JPEG Lossless', compressed: true, littleEndian: true, explicitVr: true },
  {
    uid: JPEG_LOSSLESS_SV1,
    name: 'JPEG Lossless (first-order prediction)',
    compressed: true,
    littleEndian: true,
    explicitVr: true,
  },
  {
    uid: '1.2.840.10008.1.2.4.80',
    name: 'JPEG-LS Lossless',
    compressed: true,
    littleEndian: true,
    explicitVr: true,
  },
  {
    uid: '1.2.840.10008.1.2.4.81',
    name: 'JPEG-LS Near-Lossless',
    compressed: true,
    littleEndian: true,
    explicitVr: true,
  },
  {
    uid: '1.2.840.10008.1.2.4.90',
    name: 'JPEG 2000 Lossless',
    compressed: true,
    littleEndian: true,
    explicitVr: true,
  },
  {
    uid: '1.2.840.10008.1.2.4.91',
    name: 'JPEG 2000',
    compressed: true,
    littleEndian: true,
    explicitVr: true,
  },
  {
    uid: '1.2.840.10008.1.2.4.201',
    name: 'HTJ2K Lossless',
    compressed: true,
    littleEndian: true,
    explicitVr: true,
  },
  { uid: '1.2.840.10008.1.2.4.203', name: 'HTJ2K', compressed: true, littleEndian: true, explicitVr: true },
];

const BY_UID = new Map(KNOWN.map((t) => [t.uid, t]));

/** Unknown UIDs are taken as a compressed, explicit little-endian encoding (what every newer syntax is). */
/** Whether the standard's transfer syntax with this UID is one scan2mesh knows the layout of. */
export const knownSyntax = (uid: string): boolean => BY_UID.has(uid);

export function transferSyntax(uid: string): TransferSyntaxInfo {
  return (
    BY_UID.get(uid) ?? {
      uid,
      name: `Unknown transfer syntax ${uid}`,
      compressed: true,
      littleEndian: true,
      explicitVr: true,
    }
  );
}
