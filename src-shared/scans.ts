/**
 * What crosses the contract about scans: the series found in what the user dropped, what is wrong
 * with them, and slice previews. Patient data appears here because the user is shown it; it must
 * never be written to a log.
 */
import { z } from 'zod';

const ScanProblemSchema = z.object({
  severity: z.enum(['error', 'warning', 'info']),
  /** Stable identifier for the UI (e.g. 'not-ct', 'missing-slices', 'corrupt-file'). */
  code: z.string(),
  /** Plain words for a clinician: what is wrong and, where it helps, what it means. */
  message: z.string(),
  /** The file concerned, when one is. */
  file: z.string().optional(),
});
export type ScanProblem = z.infer<typeof ScanProblemSchema>;

const SkippedFileSchema = z.object({
  path: z.string(),
  /** Why it was left out, in plain words (e.g. "a DICOMDIR index, not an image"). */
  reason: z.string(),
});
export type SkippedFile = z.infer<typeof SkippedFileSchema>;

const Vec3Schema = z.tuple([z.number(), z.number(), z.number()]);

export const SeriesSummarySchema = z.object({
  /** Stable id: a hash of the SeriesInstanceUID and the set of files. */
  id: z.string(),
  patient: z.object({ name: z.string(), id: z.string(), birthDate: z.string() }),
  study: z.object({ date: z.string(), description: z.string(), uid: z.string() }),
  seriesUid: z.string(),
  seriesNumber: z.number().optional(),
  seriesDescription: z.string(),
  modality: z.string(),
  manufacturer: z.string(),
  rows: z.number().int(),
  columns: z.number().int(),
  slices: z.number().int(),
  /** DICOM order: [row spacing, column spacing] in mm. */
  pixelSpacing: z.tuple([z.number(), z.number()]),
  /** Median distance between neighbouring slices along the stack, from the slice positions (mm). */
  sliceSpacing: z.number(),
  /**
   * Set when the files state no pixel size, or none that can be read: pixelSpacing is then the
   * preview's 1 mm stand-in, never to be shown as the scan's.
   */
  pixelSpacingUnknown: z.literal(true).optional(),
  /** Set when neither the slice positions nor the header give the slices' spacing: a stand-in too. */
  sliceSpacingUnknown: z.literal(true).optional(),
  /**
   * Distance between the planes of the volume a model is made on (mm): the slices' own spacing when
   * they are even; on uneven slices the finest spacing a run of them has, the rest interpolated.
   */
  gridStep: z.number(),
  /** ImageOrientationPatient of the slices, and the plane it amounts to. */
  orientation: z.object({
    cosines: z.tuple([z.number(), z.number(), z.number(), z.number(), z.number(), z.number()]),
    plane: z.enum(['axial', 'coronal', 'sagittal', 'oblique']),
  }),
  /** Patient position (mm) of the first voxel of the first slice along the normal. */
  origin: Vec3Schema,
  bitsAllocated: z.number().int(),
  bitsStored: z.number().int(),
  transferSyntax: z.object({ uid: z.string(), name: z.string(), compressed: z.boolean() }),
  /** True when the volume is one multi-frame file (uploaded as .dcm). */
  multiFrame: z.boolean(),
  totalBytes: z.number(),
  fileCount: z.number().int(),
  /** True when a preview can be shown (pixels can be decoded here). */
  previewable: z.boolean(),
  problems: z.array(ScanProblemSchema),
  /**
   * Whether a model can honestly be made from this series (CT, enough pixels, slices and extent for
   * a jaw, a physical scale, one orientation, no localizer, no gap too wide to fill in). Unfit
   * series may still be previewed. reasons: plain sentences for a clinician, empty when fit.
   */
  fitness: z.object({ fit: z.boolean(), reasons: z.array(z.string()) }),
  /**
   * Why the images may show patient data in their pixels (burned-in annotation, a secondary
   * capture...), which de-identification cannot remove; absent when nothing says so.
   */
  burnedInAnnotation: z.string().optional(),
  /**
   * A short hash of the series' images (their SOP Instance UIDs; a file without one by its name and
   * size): the same series dropped twice, as a folder and as its zip, shares it though its id differs.
   */
  instancesKey: z.string().optional(),
});
export type SeriesSummary = z.infer<typeof SeriesSummarySchema>;

export const IntakeResultSchema = z.object({
  series: z.array(SeriesSummarySchema),
  skipped: z.array(SkippedFileSchema),
  /** Problems of the drop as a whole (several series, nothing usable, unreadable folders...). */
  problems: z.array(ScanProblemSchema),
});
export type IntakeResult = z.infer<typeof IntakeResultSchema>;

const SlicePlaneSchema = z.enum(['axial', 'sagittal', 'coronal']);
export type SlicePlane = z.infer<typeof SlicePlaneSchema>;

export const SlicePreviewRequestSchema = z.object({
  seriesId: z.string().min(1),
  plane: SlicePlaneSchema,
  /** Slice index in that plane; the middle one when absent. */
  index: z.number().int().nonnegative().optional(),
  /** Window width and level (centre) in the scan's units (HU for CT); from the file or the histogram when absent. */
  window: z.number().positive().optional(),
  level: z.number().optional(),
});
export type SlicePreviewRequest = z.infer<typeof SlicePreviewRequestSchema>;

export const SlicePreviewSchema = z.object({
  seriesId: z.string(),
  plane: SlicePlaneSchema,
  index: z.number().int(),
  count: z.number().int(),
  width: z.number().int(),
  height: z.number().int(),
  /** [x, y] size of one preview pixel in mm, for the aspect ratio. */
  pixelSpacing: z.tuple([z.number(), z.number()]),
  window: z.number(),
  level: z.number(),
  /** Base64 of width * height 8-bit grey values, row by row from the top. */
  pixels: z.string(),
  /** True when the files state no pixel size: pixelSpacing is a 1 mm stand-in, so label the image as unscaled. */
  scaleUnknown: z.boolean().optional(),
  /**
   * Where the image lies in the patient (DICOM LPS, mm): the centre of pixel (0, 0), and the step of
   * one pixel to the right (next column) and one pixel down (next row). Orientation letters, the
   * crosshair and mesh outlines are derived from it, never assumed.
   */
  geometry: z.object({ origin: Vec3Schema, column: Vec3Schema, row: Vec3Schema }),
  /** Lowest and highest value in the whole scan (HU for CT), for the full-range window. */
  valueRange: z.tuple([z.number(), z.number()]),
  /**
   * The volume's grid: voxel (i, j, k) lies at origin + i * steps[0] + j * steps[1] + k * steps[2].
   * Axial slices are k, coronal j, sagittal i; the views turn a patient point into all three.
   */
  grid: z.object({
    dims: z.tuple([z.number().int(), z.number().int(), z.number().int()]),
    origin: Vec3Schema,
    steps: z.tuple([Vec3Schema, Vec3Schema, Vec3Schema]),
  }),
});
export type SlicePreview = z.infer<typeof SlicePreviewSchema>;
