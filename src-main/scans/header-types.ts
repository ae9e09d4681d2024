// What scan2mesh keeps of one file's header; header-fields.ts reads it, header-model.ts makes it for the
// files of a series.

export type Vec3 = [number, number, number];

/**
 * Geometry and value mapping of one frame, from the top level or from Enhanced functional groups.
 * Its arrays may be shared with other frames (of one multi-frame file, or of the files of one
 * series): read them, never change them.
 */
export interface FrameInfo {
  position?: Vec3;
  /** ImageOrientationPatient: row direction then column direction. */
  orientation?: [number, number, number, number, number, number];
  /** DICOM order: [row spacing (between rows), column spacing (between columns)] in mm. */
  pixelSpacing?: [number, number];
  slope: number;
  intercept: number;
  /**
   * Stack ID (0020,9056) of an Enhanced frame's Frame Content, when it gives one: frames of other
   * stacks are other reconstructions (another plane or slice thickness), not more of this volume.
   */
  stackId?: string;
}

/** A number-holding attribute whose text is no number (see DicomHeader.unreadableNumbers). */
export interface UnreadableNumber {
  /** dicom-parser's name of its tag: 'x00200032'. */
  tag: string;
  /** The attribute's name and tag, as the user's DICOM viewer shows it: 'Image Position (Patient) (0020,0032)'. */
  attribute: string;
  /** What it holds, as text (shortened when long). */
  text: string;
}

/** What scan2mesh needs from one file's header: identity, grouping, geometry, pixel format. */
export interface DicomHeader {
  path: string;
  fileSize: number;
  /**
   * Which file was read, and in which state (scan-file-open.ts fileIdentity): it must be the same
   * when the file is read again to be sent. '' for bytes read from memory.
   */
  fileId: string;
  transferSyntaxUid: string;
  sopClassUid: string;
  sopInstanceUid: string;
  studyUid: string;
  seriesUid: string;
  frameOfReferenceUid: string;
  /**
   * Concatenation UID (0020,9161) with In-concatenation Number and Total (0020,9162/9163): the file
   * is one part of a multi-frame image split across several files.
   */
  concatenation?: { uid: string; number?: number; total?: number };
  patientName: string;
  patientId: string;
  patientBirthDate: string;
  studyDate: string;
  studyDescription: string;
  seriesDescription: string;
  seriesNumber?: number;
  instanceNumber?: number;
  /** Temporal Position Identifier (0020,0100): the time point of a scan repeated over time. */
  temporalPosition?: number;
  modality: string;
  manufacturer: string;
  imageType: string;
  /** Burned In Annotation (0028,0301), upper case, when the file has it. */
  burnedInAnnotation?: string;
  /** Recognizable Visual Features (0028,0302), upper case, when present: YES when a face can be recognised. */
  recognizableVisualFeatures?: string;
  rows: number;
  columns: number;
  samplesPerPixel: number;
  /** 0: samples interleaved per pixel; 1: one plane per sample. Absent for one sample per pixel. */
  planarConfiguration?: number;
  photometric: string;
  bitsAllocated: number;
  bitsStored: number;
  /** High Bit (0028,0102), when the file states it: CT keeps its values in the low bits, Bits Stored - 1. */
  highBit?: number;
  pixelRepresentation: number;
  numberOfFrames: number;
  /**
   * Rescale Type (0028,1054), upper case, when the file states one (top level, else the Enhanced
   * Pixel Value Transformation): what the rescaled values are in, e.g. HU or US (unspecified).
   */
  rescaleType?: string;
  /**
   * True when the file maps its stored values through a Modality LUT Sequence (0028,3000), a table,
   * instead of (or as well as) Rescale Slope and Intercept. CT images are not made so (the CT Image
   * module requires a rescale); a reader that applied the rescale alone would misread the values.
   */
  modalityLut?: true;
  /**
   * Pixel Padding Value (0028,0120) and Pixel Padding Range Limit (0028,0121), as stored values
   * (before Rescale Slope and Intercept), lowest first: the pixels outside the reconstructed field of
   * view. One value gives a range of one.
   */
  pixelPadding?: [number, number];
  /** The bits of each sample above Bits Stored that hold overlays (retired Overlay Bit Position), as a mask. */
  overlayBits?: number;
  sliceThickness?: number;
  spacingBetweenSlices?: number;
  /** GridFrameOffsetVector (3004,000C, RT Dose style multi-frame): each frame's offset along the normal, mm. */
  gridFrameOffsets?: number[];
  windowCenter?: number;
  windowWidth?: number;
  /**
   * Numbers that place or size the slices (position, orientation, pixel spacing, grid offsets) written
   * as no number DICOM allows, or too few of them (dicom-decimal.ts): each attribute with the text it
   * holds. Those values are left out of the frames, and the fitness check refuses them in words.
   */
  unreadableNumbers?: UnreadableNumber[];
  /** One entry per frame (a single entry for a single-frame file). */
  frames: FrameInfo[];
  pixelData?: {
    offset: number;
    length: number;
    encapsulated: boolean;
    /** Bytes of uncompressed pixel data the file lacks (it was cut off); 0 when whole or unknown. */
    missingBytes: number;
  };
}
