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

/** Modalities whose images are usually screens, photographs or prints with text on them. */
const RISKY_MODALITIES: Record<string, string> = {
  OT: 'an image of "other" modality',
  SC: 'a secondary capture',
  US: 'an ultrasound image',
  XC: 'a photograph',
  ES: 'an endoscopy image',
  DOC: 'a scanned document',
  PX: 'a panoramic X-ray',
  IO: 'an intra-oral X-ray',
  OP: 'an ophthalmic photograph',
  GM: 'a general microscopy image',
  SM: 'a slide microscopy image',
};

/** Cross-sectional modalities: their SECONDARY images are reformats of slices, not screenshots. */
const VOLUME_MODALITIES = new Set(['CT', 'MR', 'PT', 'NM']);

interface BurnedInFacts {
  /** Burned In Annotation (0028,0301): YES, NO, or '' when absent. */
  burnedInAnnotation: string;
  modality: string;
  sopClassUid: string;
  /** Recognizable Visual Features (0028,0302): YES when a face or the like can be recognised. */
  recognizableVisualFeatures?: string;
  /** Image Type (0008,0008), its values as they are. */
  imageType?: string[];
  /** YES found for either flag inside a functional group item (shared or per frame). */
  yesInFunctionalGroups?: boolean;
}

/**
 * Why the pixels may show patient data, in words, or undefined when nothing says so. A YES anywhere
 * (the top level or a functional group) for burned-in text or recognisable features always
 * counts; a secondary capture class, an image made from other images (Image Type SECONDARY or
 * SCREEN SAVE: screenshots) or a risky modality counts unless the file says NO.
 */
export function burnedInReason(f: BurnedInFacts): string | undefined {
  const flags = csValues(f.burnedInAnnotation);
  if (flags.includes('YES') || f.yesInFunctionalGroups)
    return 'its images are marked as showing patient data in the pixels (Burned In Annotation)';
  if (csValues(f.recognizableVisualFeatures ?? '').includes('YES'))
    return 'its images are marked as showing the patient recognisably, such as a face (Recognizable Visual Features)';
  if (flags.length > 0 && flags.every((v) => v === 'NO')) return undefined;
  if (SECONDARY_CAPTURE.has(f.sopClassUid.trim()))
    return 'it is a secondary capture (a screenshot or scanned picture), which often shows patient data in the pixels';
  const type = (f.imageType ?? []).map((v) => v.trim().toUpperCase());
  const modality = f.modality.trim().toUpperCase();
  // SECONDARY alone says only "made from other images": every reformatted CT or MR series and many
  // CBCT exports are, without a word in their pixels. Flagging those would teach users to accept
  // the warning unread. A screen save is a picture of a screen, whatever the modality.
  if (type.includes('SCREEN SAVE') || (type.includes('SECONDARY') && !VOLUME_MODALITIES.has(modality)))
    return 'its images are marked as secondary (Image Type: made from other images, such as a screenshot), which often shows patient data in the pixels';
  const kind = RISKY_MODALITIES[modality];
  if (kind) return `it is ${kind}, which often shows patient data in the pixels`;
  return undefined;
}

/** The facts above, read from a parsed file: its top level and its functional groups. */
export function burnedInFactsOf(ds: DataSet): BurnedInFacts {
  const text = (tag: string): string => (ds.string(tag) ?? '').trim();
  return {
    burnedInAnnotation: text('x00280301'),
    modality: text('x00080060'),
    sopClassUid: text('x00080016').replace(/\0/g, ''),
    recognizableVisualFeatures: text('x00280302'),
    imageType: text('x00080008').split('\\'),
    yesInFunctionalGroups: ['x52009229', 'x52009230'].some((g) =>
      (ds.elements[g]?.items ?? []).some((i) => yesWithin(i.dataSet)),
    ),
  };
}

/**
 * The values of a code string, upper case: a flag written `NO\\YES` says YES too (one value is its
 * VM, but a writer that sends two has said YES, and NO is only believed alone).
 */
function csValues(text: string): string[] {
  return text
    .split('\\')
    .map((v) => v.trim().toUpperCase())
    .filter((v) => v !== '');
}

/** A YES for burned-in text or recognisable features at any depth of a functional group item. */
function yesWithin(ds: DataSet | undefined): boolean {
  if (!ds) return false;
  for (const flag of ['x00280301', 'x00280302'])
    if (csValues(ds.string(flag) ?? '').includes('YES')) return true;
  return Object.values(ds.elements).some((el) => (el.items ?? []).some((i) => yesWithin(i.dataSet)));
}
