import type { DataSet } from 'dicom-parser';

/**
 * Whether a series may show patient data in its pixels ("burned-in annotation"), which removing
 * attributes cannot clean: such a series goes out de-identified only when the user accepts it.
 */

/** Secondary Capture SOP classes (PS3.4 B.5): screenshots, scanned film and documents. */
const SECONDARY_CAPTURE = new Set([
  '1.2.840.10008.5.1.4.1.1.7',
  '1.2.840.10008.5.1.4.1.1.7.1',
  '1.2.840.10008.5.1.4.1.1.7.2',
  '1.2.840.10008.5.1.4.1.1.7.3',
  '1.2.840.10008.5.1.4.1.1.7.4',
]);

/** Modalities whose images are usually screens or photographs with text on them. */
const RISKY_MODALITIES: Record<string, string> = {
  OT: 'an image of "other" modality',
  SC: 'a secondary capture',
  US: 'an ultrasound image',
  XC: 'a photograph',
  ES: 'an endoscopy image',
  DOC: 'a scanned document',
};

interface BurnedInFacts {
  /** Burned In Annotation (0028,0301): YES, NO, or '' when absent. */
  burnedInAnnotation: string;
  modality: string;
  sopClassUid: string;
}

/**
 * Why the pixels may show patient data, in words, or undefined when nothing says so. An explicit
 * YES always counts; a secondary capture or a risky modality counts unless the file says NO.
 */
export function burnedInReason(f: BurnedInFacts): string | undefined {
  const flag = f.burnedInAnnotation.trim().toUpperCase();
  if (flag === 'YES')
    return 'its images are marked as showing patient data in the pixels (Burned In Annotation)';
  if (flag === 'NO') return undefined;
  if (SECONDARY_CAPTURE.has(f.sopClassUid.trim()))
    return 'it is a secondary capture (a screenshot or scanned picture), which often shows patient data in the pixels';
  const kind = RISKY_MODALITIES[f.modality.trim().toUpperCase()];
  if (kind) return `it is ${kind}, which often shows patient data in the pixels`;
  return undefined;
}

/** The facts above, read from a parsed file's top level. */
export function burnedInFactsOf(ds: DataSet): BurnedInFacts {
  const text = (tag: string): string => (ds.string(tag) ?? '').trim();
  return {
    burnedInAnnotation: text('x00280301'),
    modality: text('x00080060'),
    sopClassUid: text('x00080016').replace(/\0/g, ''),
  };
}
