import type { DataSet, Element } from 'dicom-parser';
import { dicomParserLib } from './dicom-parser-lib.js';
import { PIXEL_DATA, type ParsedDicom } from './dicom-file.js';
import { fromModel, keepModel } from './header-model.js';
import { pixelPaddingOf } from './header-padding.js';
import { boundedFrameCount, framesDisagree, pixelDataOf } from './header-pixels.js';
import { HEADER_TAGS, TAG } from './header-tags.js';
import { overlayBitsOf } from './header-overlays.js';
import type { DicomHeader, FrameInfo, UnreadableNumber, Vec3 } from './header-types.js';
import {
  hasValue,
  isUtf8,
  NAME,
  num,
  numbers,
  numbersIn,
  shortText,
  TagTable,
  text,
  uid,
  UPPER,
  us,
  valueText,
} from './header-values.js';
import { decimalValue } from './dicom-decimal.js';

export type { DicomHeader, FrameInfo, Vec3 } from './header-types.js';
export { MAX_FRAMES, uncompressedFrameBytes } from './header-pixels.js';

/** The attributes whose unreadable numbers are reported (those that place or size the slices). */
const PLACING: Record<string, string> = {
  x00200032: 'Image Position (Patient) (0020,0032)',
  x00200037: 'Image Orientation (Patient) (0020,0037)',
  x00280030: 'Pixel Spacing (0028,0030)',
  x3004000c: 'Grid Frame Offset Vector (3004,000C)',
  x00180050: 'Slice Thickness (0018,0050)',
};

/** Notes an attribute that has a value the numbers were not read from (once per attribute and text). */
function noteUnreadable(out: UnreadableNumber[], tag: string, raw: string): void {
  const entry = { tag, attribute: PLACING[tag]!, text: shortText(raw) };
  if (!out.some((u) => u.attribute === entry.attribute && u.text === entry.text)) out.push(entry);
}

/** The top-level numbers of a placing attribute; an unreadable value is noted in `out`. */
function placing(t: TagTable, k: number, count: number, out: UnreadableNumber[]): number[] | undefined {
  const v = numbers(t, k, count);
  if (v === undefined && hasValue(t, k)) noteUnreadable(out, HEADER_TAGS[k]!, valueText(t, k));
  return v;
}

/**
 * The numbers of a DS or IS element of a functional-group item; undefined when absent or not
 * numeric (noted in `out` when it is a placing attribute).
 */
function itemNumbers(
  ds: DataSet,
  tag: string,
  count: number,
  out?: UnreadableNumber[],
): number[] | undefined {
  const el = ds.elements[tag];
  if (!el || el.length === 0 || el.length === 0xffffffff) return undefined;
  const raw = itemRaw(ds, el);
  const v = numbersIn(raw, count);
  if (v === undefined && out && PLACING[tag]) noteUnreadable(out, tag, raw);
  return v;
}

function itemNum(ds: DataSet, tag: string): number | undefined {
  const el = ds.elements[tag];
  if (!el || el.length === 0 || el.length === 0xffffffff) return undefined;
  const raw = itemRaw(ds, el);
  const cut = raw.indexOf('\\');
  const v = decimalValue(cut < 0 ? raw : raw.slice(0, cut));
  return Number.isFinite(v) ? v : undefined;
}

/** A rescale value of an item: undefined when absent, NaN when present but not a number (rescaleOf). */
function itemRescale(ds: DataSet, tag: string): number | undefined {
  const el = ds.elements[tag];
  if (!el || el.length === 0 || el.length === 0xffffffff) return undefined;
  return itemNum(ds, tag) ?? NaN;
}

/**
 * Rescale Slope or Intercept: `absent` (1 or 0) when the file has none, NaN when it has one that is
 * not a number. Taken as 1 or 0 it would be a guess at the HU scale; NaN is refused by the fitness
 * check, in words.
 */
function rescaleOf(t: TagTable, k: number, absent: number): number {
  if (t.offset[k]! < 0 || t.length[k] === 0) return absent;
  return num(t, k) ?? NaN;
}

function itemRaw(ds: DataSet, el: Element): string {
  const b = ds.byteArray;
  const end = el.dataOffset + el.length;
  return Buffer.isBuffer(b)
    ? b.toString('latin1', el.dataOffset, end)
    : Buffer.from(b.subarray(el.dataOffset, end)).toString('latin1');
}

/** First item's data set of a sequence, if any. */
function item(ds: DataSet | undefined, tag: string): DataSet | undefined {
  const el: Element | undefined = ds?.elements[tag];
  return el?.items?.[0]?.dataSet;
}

const SHARED_GROUPS = HEADER_TAGS[TAG.sharedGroups]!;
const PER_FRAME_GROUPS = HEADER_TAGS[TAG.perFrameGroups]!;
const PLANE_POSITION = 'x00209113';
const PLANE_ORIENTATION = 'x00209116';
const PIXEL_MEASURES = 'x00289110';
const PIXEL_VALUE_TRANSFORMATION = 'x00289145';
const FRAME_VOI_LUT = 'x00289132';
const FRAME_CONTENT = 'x00209111';

/** The Enhanced multi-frame functional groups of a header (only dicom-parser reads their items). */
interface FunctionalGroups {
  shared: DataSet | undefined;
  perFrame: { dataSet?: DataSet }[];
}

function frameFrom(
  groups: (DataSet | undefined)[],
  fallback: FrameInfo,
  unreadable: UnreadableNumber[],
): FrameInfo {
  const pick = <T>(f: (ds: DataSet) => T | undefined): T | undefined => {
    for (const g of groups) {
      if (!g) continue;
      const v = f(g);
      if (v !== undefined) return v;
    }
    return undefined;
  };
  const position = pick((g) => {
    const p = item(g, PLANE_POSITION);
    return p ? (itemNumbers(p, 'x00200032', 3, unreadable) as Vec3 | undefined) : undefined;
  });
  const orientation = pick((g) => {
    const o = item(g, PLANE_ORIENTATION);
    return o ? (itemNumbers(o, 'x00200037', 6, unreadable) as FrameInfo['orientation']) : undefined;
  });
  const pixelSpacing = pick((g) => {
    const m = item(g, PIXEL_MEASURES);
    return m ? (itemNumbers(m, 'x00280030', 2, unreadable) as [number, number] | undefined) : undefined;
  });
  const slope = pick((g) => {
    const t = item(g, PIXEL_VALUE_TRANSFORMATION);
    return t ? itemRescale(t, 'x00281053') : undefined;
  });
  const intercept = pick((g) => {
    const t = item(g, PIXEL_VALUE_TRANSFORMATION);
    return t ? itemRescale(t, 'x00281052') : undefined;
  });
  const stackId = pick((g) => {
    const c = item(g, FRAME_CONTENT);
    const el = c?.elements['x00209056'];
    if (!c || !el || el.length === 0 || el.length === 0xffffffff) return undefined;
    // SH: padded with spaces (or, by some writers, NULs); '1' and '1 ' are one stack.
    return (
      itemRaw(c, el)
        .replace(/[\0 ]+$/, '')
        .trim() || undefined
    );
  });
  const frame: FrameInfo = { slope: slope ?? fallback.slope, intercept: intercept ?? fallback.intercept };
  if (stackId !== undefined) frame.stackId = stackId;
  const pos = position ?? fallback.position;
  const ori = orientation ?? fallback.orientation;
  const sp = pixelSpacing ?? fallback.pixelSpacing;
  if (pos) frame.position = pos;
  if (ori) frame.orientation = ori;
  if (sp) frame.pixelSpacing = sp;
  return frame;
}

/**
 * The fields of a header whose tags are in a table; `ds`, the data set dicom-parser read (the
 * tag-only reader has none), gives the Enhanced functional groups.
 */
export function tableFields(
  path: string,
  fileSize: number,
  fileId: string,
  t: TagTable,
  ds?: DataSet,
): DicomHeader {
  if (!ds) {
    // Another file of the series the reader's template came from: made from that file's header.
    const like = fromModel(path, fileSize, fileId, t);
    if (like) return like;
  }
  const shared = item(ds, SHARED_GROUPS);
  const perFrame = ds?.elements[PER_FRAME_GROUPS]?.items ?? [];
  const header = fieldsOf(
    path,
    fileSize,
    fileId,
    t,
    shared || perFrame.length > 0 ? { shared, perFrame } : undefined,
  );
  if (t.isTemplate) keepModel(t, header);
  return header;
}

/** A data set's top-level tags in a table, so that both readers' headers are decoded by one code. */
export function tableOf(parsed: ParsedDicom): TagTable {
  const ds = parsed.dataSet;
  const t = new TagTable();
  const b = ds.byteArray;
  t.bytes = Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  for (let k = 0; k < HEADER_TAGS.length; k++) {
    const el = ds.elements[HEADER_TAGS[k]!];
    // dicom-parser's stand-in transfer syntax of a file without meta header has a value and no place.
    if (el && typeof el.dataOffset === 'number') {
      t.offset[k] = el.dataOffset;
      t.length[k] = el.length;
    }
  }
  t.bigEndian = ds.byteArrayParser === dicomParserLib().bigEndianByteArrayParser;
  const px = ds.elements[PIXEL_DATA];
  if (px) {
    t.pixelOffset = px.dataOffset;
    t.pixelLength = px.length;
    t.pixelEncapsulated = px.hadUndefinedLength === true || px.encapsulatedPixelData === true;
  }
  t.fileOffset = parsed.fileOffset;
  t.transferSyntaxUid = parsed.transferSyntaxUid;
  return t;
}

/**
 * The fields scan2mesh uses. Values are plain strings/numbers; absent text is ''. Reads that can
 * fail on a damaged header (the character set, the frame count, the unsigned shorts) run in the
 * order they always have, so that a damaged file is described by the same failure.
 */
function fieldsOf(
  path: string,
  fileSize: number,
  fileId: string,
  t: TagTable,
  groups: FunctionalGroups | undefined,
): DicomHeader {
  const utf8 = isUtf8(t, TAG.charset);
  const numberOfFrames = boundedFrameCount(t, fileSize);
  // One Per-Frame Functional Groups item per frame: another count leaves frames out, or describes
  // frames that are not there. (An empty sequence describes none: its frames have no own position.)
  const described = groups?.perFrame.length ?? 0;
  if (described > 0 && t.pixelOffset >= 0 && described !== numberOfFrames) {
    const n = described.toLocaleString('en-US');
    throw framesDisagree(numberOfFrames, `it describes ${n} one by one (Per-Frame Functional Groups)`);
  }
  const topFrame: FrameInfo = {
    slope: rescaleOf(t, TAG.rescaleSlope, 1),
    intercept: rescaleOf(t, TAG.rescaleIntercept, 0),
  };
  const unreadable: UnreadableNumber[] = [];
  const pos = placing(t, TAG.position, 3, unreadable) as Vec3 | undefined;
  const ori = placing(t, TAG.orientation, 6, unreadable) as FrameInfo['orientation'];
  // Pixel Spacing alone: Imager Pixel Spacing is measured at a projection detector, not in the
  // patient, and would give a CT volume a wrong size (about a third too small, as a test found).
  const sp = placing(t, TAG.pixelSpacing, 2, unreadable) as [number, number] | undefined;
  if (pos) topFrame.position = pos;
  if (ori) topFrame.orientation = ori;
  if (sp) topFrame.pixelSpacing = sp;

  let frames: FrameInfo[];
  const { position: _first, ...unplaced } = topFrame;
  if (groups) {
    // A frame's place is its Plane Position, per frame or shared. A top-level Image Position of a
    // multi-frame file is one place (the first frame's, or the middle one's, as converters write
    // it): lent to frames without their own, it put them on top of another frame.
    const fallback = numberOfFrames > 1 ? unplaced : topFrame;
    frames = [];
    for (let i = 0; i < numberOfFrames; i++)
      frames.push(frameFrom([groups.perFrame[i]?.dataSet, groups.shared], fallback, unreadable));
  } else if (numberOfFrames > 1) {
    // A multi-frame file without functional groups gives one position for all its frames: only the
    // first frame's is known, and the others are laid out from it (see layoutSlices).
    frames = Array.from({ length: numberOfFrames }, (_, i) => (i === 0 ? topFrame : { ...unplaced }));
  } else {
    frames = [topFrame];
  }

  let windowCenter = num(t, TAG.windowCenter);
  let windowWidth = num(t, TAG.windowWidth);
  if ((windowCenter === undefined || windowWidth === undefined) && groups) {
    const voi = item(groups.shared, FRAME_VOI_LUT) ?? item(groups.perFrame[0]?.dataSet, FRAME_VOI_LUT);
    if (voi) {
      windowCenter = itemNum(voi, 'x00281050');
      windowWidth = itemNum(voi, 'x00281051');
    }
  }

  const header: DicomHeader = {
    path,
    fileSize,
    fileId,
    transferSyntaxUid: t.transferSyntaxUid,
    sopClassUid: uid(t, TAG.sopClass, utf8),
    sopInstanceUid: uid(t, TAG.sopInstance, utf8),
    studyUid: uid(t, TAG.studyUid, utf8),
    seriesUid: uid(t, TAG.seriesUid, utf8),
    frameOfReferenceUid: uid(t, TAG.frameOfReference, utf8),
    patientName: text(t, TAG.patientName, utf8, NAME),
    patientId: text(t, TAG.patientId, utf8),
    patientBirthDate: text(t, TAG.patientBirthDate, utf8),
    studyDate: text(t, TAG.studyDate, utf8),
    studyDescription: text(t, TAG.studyDescription, utf8),
    seriesDescription: text(t, TAG.seriesDescription, utf8),
    modality: text(t, TAG.modality, utf8, UPPER),
    manufacturer: text(t, TAG.manufacturer, utf8),
    imageType: text(t, TAG.imageType, utf8),
    rows: us(t, TAG.rows) ?? 0,
    columns: us(t, TAG.columns) ?? 0,
    samplesPerPixel: us(t, TAG.samplesPerPixel) ?? 1,
    photometric: text(t, TAG.photometric, utf8, UPPER),
    bitsAllocated: us(t, TAG.bitsAllocated) ?? 0,
    bitsStored: us(t, TAG.bitsStored) ?? us(t, TAG.bitsAllocated) ?? 0,
    pixelRepresentation: us(t, TAG.pixelRepresentation) ?? 0,
    numberOfFrames,
    frames,
  };
  const seriesNumber = num(t, TAG.seriesNumber);
  const instanceNumber = num(t, TAG.instanceNumber);
  const sharedMeasures = groups && item(groups.shared, PIXEL_MEASURES);
  const thickness =
    placing(t, TAG.sliceThickness, 1, unreadable)?.[0] ??
    (sharedMeasures ? itemNumbers(sharedMeasures, 'x00180050', 1, unreadable)?.[0] : undefined);
  // Read only where no slice gives its position, which is refused anyway: not named when unreadable.
  const between = num(t, TAG.spacingBetweenSlices);
  const highBit = us(t, TAG.highBit);
  if (highBit !== undefined) header.highBit = highBit;
  const planar = us(t, TAG.planarConfiguration);
  if (header.samplesPerPixel > 1 && planar !== undefined) header.planarConfiguration = planar;
  if (seriesNumber !== undefined) header.seriesNumber = seriesNumber;
  if (instanceNumber !== undefined) header.instanceNumber = instanceNumber;
  const temporalPosition = num(t, TAG.temporalPosition);
  if (temporalPosition !== undefined) header.temporalPosition = temporalPosition;
  if (thickness !== undefined) header.sliceThickness = thickness;
  if (between !== undefined) header.spacingBetweenSlices = between;
  const burnedIn = text(t, TAG.burnedInAnnotation, utf8, UPPER);
  if (burnedIn) header.burnedInAnnotation = burnedIn;
  const recognizable = text(t, TAG.recognizableVisualFeatures, utf8, UPPER);
  if (recognizable) header.recognizableVisualFeatures = recognizable;
  const gridOffsets =
    numberOfFrames > 1 ? placing(t, TAG.gridFrameOffsets, numberOfFrames, unreadable) : undefined;
  if (gridOffsets) header.gridFrameOffsets = gridOffsets;
  if (unreadable.length > 0) header.unreadableNumbers = unreadable;
  if (windowCenter !== undefined && windowWidth !== undefined && windowWidth > 0) {
    header.windowCenter = windowCenter;
    header.windowWidth = windowWidth;
  }
  const pixelData = pixelDataOf(t, fileSize);
  if (pixelData) header.pixelData = pixelData;
  const rescaleType = text(t, TAG.rescaleType, utf8, UPPER) || groupRescaleType(groups);
  if (rescaleType) header.rescaleType = rescaleType;
  const concatenationUid = uid(t, TAG.concatenationUid, utf8);
  if (concatenationUid) {
    header.concatenation = { uid: concatenationUid };
    const number = us(t, TAG.inConcatenationNumber);
    const total = us(t, TAG.inConcatenationTotal);
    if (number !== undefined) header.concatenation.number = number;
    if (total !== undefined) header.concatenation.total = total;
  }
  // An empty sequence maps nothing: the rescale (or none) still says what the values are.
  if (t.offset[TAG.modalityLut]! >= 0 && t.length[TAG.modalityLut]! > 0) header.modalityLut = true;
  const padding = pixelPaddingOf(t, header.pixelRepresentation === 1);
  if (padding) header.pixelPadding = padding;
  const overlayBits = overlayBitsOf(t, header);
  if (overlayBits) header.overlayBits = overlayBits;
  return header;
}

/** Rescale Type of an Enhanced file's Pixel Value Transformation (shared, else the first frame's). */
function groupRescaleType(groups: FunctionalGroups | undefined): string {
  const pvt =
    item(groups?.shared, PIXEL_VALUE_TRANSFORMATION) ??
    item(groups?.perFrame[0]?.dataSet, PIXEL_VALUE_TRANSFORMATION);
  return pvt?.string('x00281054')?.trim().toUpperCase() ?? '';
}
