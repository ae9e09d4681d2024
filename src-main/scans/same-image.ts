import { prepareCodec } from './codecs.js';
import { readDicomFile } from './dicom-file.js';
import type { DicomHeader } from './header-fields.js';
import { frameStoredValues, type StoredValues } from './pixel-decode.js';
import { pearson } from './plane-correlation.js';
import { isLossy } from './series-summary.js';

/**
 * Whether two files under one SOP Instance UID but in different transfer syntaxes hold the same
 * image: an archive or a viewer that converts a file without loss keeps its UID, as the standard
 * allows. Their bytes differ, so the image itself is compared: the facts that place and scale it, then
 * every frame's stored values (exactly; nearly, correlating 0.99 or more, where one of them is lossy
 * and was made from the other). A review gave a second file the UID of a slice, a block of bone in
 * its image, in another encoding: it was taken for a copy, and which of the two made the model
 * depended on the files' names. False when either cannot be read or decoded: not shown to be a copy.
 */
export async function sameImage(a: DicomHeader, b: DicomHeader): Promise<boolean> {
  if (imageFacts(a) !== imageFacts(b)) return false;
  try {
    const [pa, pb] = await Promise.all([readDicomFile(a.path, a.fileId), readDicomFile(b.path, b.fileId)]);
    await prepareCodec(pa.transferSyntaxUid);
    await prepareCodec(pb.transferSyntaxUid);
    const lossy = isLossy(a.transferSyntaxUid) || isLossy(b.transferSyntaxUid);
    for (let k = 0; k < a.numberOfFrames; k++) {
      const x = frameStoredValues(pa, a, k);
      const y = frameStoredValues(pb, b, k);
      if (x.length !== y.length) return false;
      if (lossy ? correlation(x, y) < LOSSY_ALIKE : !equal(x, y)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** How alike a lossy copy's values must be to the image it was made from. */
const LOSSY_ALIKE = 0.99;

/** What places, sizes and scales the image, as one string (the frames' geometry and rescale too). */
function imageFacts(h: DicomHeader): string {
  return JSON.stringify([
    h.rows,
    h.columns,
    h.numberOfFrames,
    h.samplesPerPixel,
    h.photometric,
    h.bitsAllocated,
    h.bitsStored,
    h.pixelRepresentation,
    h.rescaleType,
    h.pixelPadding,
    h.frames,
  ]);
}

function equal(x: StoredValues, y: StoredValues): boolean {
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

function correlation(x: StoredValues, y: StoredValues): number {
  const n = x.length;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    const a = x[i] as number;
    const b = y[i] as number;
    sx += a;
    sy += b;
    sxx += a * a;
    syy += b * b;
    sxy += a * b;
  }
  return pearson(n, sx, sy, sxx, syy, sxy);
}
