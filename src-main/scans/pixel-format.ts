import type { DicomHeader } from './header-fields.js';
import { wasmCodecFor } from './codecs.js';
import { JPEG_LOSSLESS_P14, JPEG_LOSSLESS_SV1, RLE_LOSSLESS, transferSyntax } from './transfer-syntax.js';

// What a header says about its pixels, without decoding any: kept apart from pixel-decode.ts so that
// describing a series (inspect, a drop) does not load the decoders (jpeg-lossless-decoder-js and
// the codecs' glue). codecs.ts loads its WASM libraries only when a frame is decoded.

/** Lossy JPEG Extended: 8-bit frames decode (libjpeg-turbo); 12-bit ones need a decoder scan2mesh lacks. */
const JPEG_EXTENDED = '1.2.840.10008.1.2.4.51';

/**
 * Whether scan2mesh decodes the pixels of files with this header: uncompressed and RLE itself,
 * JPEG Lossless with jpeg-lossless-decoder-js, JPEG-LS, JPEG 2000 and 8-bit lossy JPEG with the
 * cornerstone WASM codecs (prepareCodec).
 */
export function canDecode(h: Pick<DicomHeader, 'transferSyntaxUid' | 'bitsAllocated'>): boolean {
  const uid = h.transferSyntaxUid;
  const ts = transferSyntax(uid);
  if (uid === JPEG_EXTENDED && h.bitsAllocated !== 8) return false;
  return (
    !ts.compressed ||
    [RLE_LOSSLESS, JPEG_LOSSLESS_P14, JPEG_LOSSLESS_SV1].includes(uid) ||
    wasmCodecFor(uid) !== undefined
  );
}

/**
 * Colour encodings whose luminance (Y) is read as the grey value, as a CT stored this way means:
 * uncompressed YBR_FULL and YBR_FULL_422 (a scanner or PACS may convert grey CT to these).
 */
export function readsAsGrey(
  h: Pick<DicomHeader, 'samplesPerPixel' | 'photometric' | 'transferSyntaxUid'>,
): boolean {
  if (h.samplesPerPixel === 1) return true;
  return (
    h.samplesPerPixel === 3 &&
    (h.photometric === 'YBR_FULL' || h.photometric === 'YBR_FULL_422') &&
    !transferSyntax(h.transferSyntaxUid).compressed
  );
}
