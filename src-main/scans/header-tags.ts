/**
 * Every top-level tag read from a header, by name: by the header fields (header-fields.ts), by the
 * classifier (classify-file.ts: Media Storage SOP Class, Directory Record Sequence) and for the
 * transfer syntax. The tag-only reader (header-tag-reader.ts) keeps these and no others, in a table
 * indexed by their place here; a test checks that the fields ask for nothing else. The pixel data
 * element is always kept, apart. Listed in ascending tag order: the reader walks this list in step
 * with a header's elements, which come in that order.
 */
const NAMED = {
  mediaStorageSopClass: 'x00020002',
  transferSyntax: 'x00020010',
  directoryRecords: 'x00041220',
  charset: 'x00080005',
  imageType: 'x00080008',
  sopClass: 'x00080016',
  sopInstance: 'x00080018',
  studyDate: 'x00080020',
  modality: 'x00080060',
  manufacturer: 'x00080070',
  studyDescription: 'x00081030',
  seriesDescription: 'x0008103e',
  patientName: 'x00100010',
  patientId: 'x00100020',
  patientBirthDate: 'x00100030',
  sliceThickness: 'x00180050',
  spacingBetweenSlices: 'x00180088',
  studyUid: 'x0020000d',
  seriesUid: 'x0020000e',
  seriesNumber: 'x00200011',
  instanceNumber: 'x00200013',
  position: 'x00200032',
  orientation: 'x00200037',
  frameOfReference: 'x00200052',
  // Which time point of a scan repeated over time (a dynamic or 4D CT) the slice shows.
  temporalPosition: 'x00200100',
  concatenationUid: 'x00209161',
  inConcatenationNumber: 'x00209162',
  inConcatenationTotal: 'x00209163',
  samplesPerPixel: 'x00280002',
  photometric: 'x00280004',
  planarConfiguration: 'x00280006',
  numberOfFrames: 'x00280008',
  rows: 'x00280010',
  columns: 'x00280011',
  pixelSpacing: 'x00280030',
  bitsAllocated: 'x00280100',
  bitsStored: 'x00280101',
  highBit: 'x00280102',
  pixelRepresentation: 'x00280103',
  pixelPaddingValue: 'x00280120',
  pixelPaddingRangeLimit: 'x00280121',
  burnedInAnnotation: 'x00280301',
  recognizableVisualFeatures: 'x00280302',
  windowCenter: 'x00281050',
  windowWidth: 'x00281051',
  rescaleIntercept: 'x00281052',
  rescaleSlope: 'x00281053',
  rescaleType: 'x00281054',
  // Read for its presence only: values mapped by a table rather than a rescale (see header-fields.ts).
  modalityLut: 'x00283000',
  gridFrameOffsets: 'x3004000c',
  // Enhanced multi-frame functional groups: sequences, whose items only dicom-parser reads.
  sharedGroups: 'x52009229',
  perFrameGroups: 'x52009230',
} as const;

/**
 * Overlays kept in the image's unused high bits (retired, still in old scans), one per group 6000,
 * 6002, ... 601E: Overlay Rows and Columns, Overlay Bits Allocated and Bit Position, and Overlay Data
 * (whose presence puts the overlay outside the image). The bits of a whole declaration are not values
 * wider than Bits Stored (stored-bits.ts); a review passed enamel through by declaring the bits
 * alone. After the named tags, in tag order.
 */
const OVERLAY_ELEMENTS = [0x0010, 0x0011, 0x0100, 0x0102, 0x3000];
const OVERLAY_TAGS = Array.from({ length: 16 }, (_, g) =>
  OVERLAY_ELEMENTS.map((e) => `x${(0x6000 + 2 * g).toString(16)}${e.toString(16).padStart(4, '0')}`),
).flat();

type TagName = keyof typeof NAMED;

/** The tags as dicom-parser names them ('x00280010'), in table order. */
export const HEADER_TAGS: readonly string[] = [...Object.values(NAMED), ...OVERLAY_TAGS];

/** Where overlay group g's (0..15) elements are kept: Rows, Columns, Bits Allocated, Bit Position, Data. */
export const overlayTags = (
  g: number,
): { rows: number; columns: number; bits: number; at: number; data: number } => {
  const k = Object.keys(NAMED).length + OVERLAY_ELEMENTS.length * g;
  return { rows: k, columns: k + 1, bits: k + 2, at: k + 3, data: k + 4 };
};

/** Each tag's place in the table (TAG.rows is where Rows is kept). */
export const TAG = Object.fromEntries(Object.keys(NAMED).map((name, i) => [name, i])) as Record<
  TagName,
  number
>;
