import type { DataSet, Element } from 'dicom-parser';
import { DicomParseError, PIXEL_DATA, type ParsedDicom } from './dicom-file.js';

export type Vec3 = [number, number, number];

/** Geometry and value mapping of one frame, from the top level or from Enhanced functional groups. */
export interface FrameInfo {
  position?: Vec3;
  /** ImageOrientationPatient: row direction then column direction. */
  orientation?: [number, number, number, number, number, number];
  /** DICOM order: [row spacing (between rows), column spacing (between columns)] in mm. */
  pixelSpacing?: [number, number];
  slope: number;
  intercept: number;
}

/** What scan2mesh needs from one file's header: identity, grouping, geometry, pixel format. */
export interface DicomHeader {
  path: string;
  fileSize: number;
  transferSyntaxUid: string;
  sopClassUid: string;
  sopInstanceUid: string;
  studyUid: string;
  seriesUid: string;
  frameOfReferenceUid: string;
  patientName: string;
  patientId: string;
  patientBirthDate: string;
  studyDate: string;
  studyDescription: string;
  seriesDescription: string;
  seriesNumber?: number;
  instanceNumber?: number;
  modality: string;
  manufacturer: string;
  imageType: string;
  /** Burned In Annotation (0028,0301), upper case, when the file has it. */
  burnedInAnnotation?: string;
  rows: number;
  columns: number;
  samplesPerPixel: number;
  /** 0: samples interleaved per pixel; 1: one plane per sample. Absent for one sample per pixel. */
  planarConfiguration?: number;
  photometric: string;
  bitsAllocated: number;
  bitsStored: number;
  pixelRepresentation: number;
  numberOfFrames: number;
  sliceThickness?: number;
  spacingBetweenSlices?: number;
  /** GridFrameOffsetVector (3004,000C, RT Dose style multi-frame): each frame's offset along the normal, mm. */
  gridFrameOffsets?: number[];
  windowCenter?: number;
  windowWidth?: number;
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

const CHARSET = 'x00080005';

const utf8Decoder = new TextDecoder('utf-8');

/** The raw text of an element (Latin-1 bytes as characters), decoded once with Node's native slice. */
function raw(ds: DataSet, el: Element): string {
  const b = ds.byteArray;
  const end = el.dataOffset + el.length;
  return Buffer.isBuffer(b)
    ? b.toString('latin1', el.dataOffset, end)
    : Buffer.from(b.subarray(el.dataOffset, end)).toString('latin1');
}

/** Decodes a text value honouring the Specific Character Set where Node can (UTF-8, else Latin-1). */
function text(ds: DataSet, tag: string, utf8: boolean): string {
  const el = ds.elements[tag];
  if (!el || el.length === 0 || el.length === 0xffffffff) return '';
  const s = utf8
    ? utf8Decoder.decode(ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length))
    : raw(ds, el);
  return s.replace(/\0+$/, '').trim();
}

/** The numbers of a decimal or integer string (DS, IS) element; undefined when absent or not numeric. */
function numbers(ds: DataSet, tag: string, count: number): number[] | undefined {
  const el = ds.elements[tag];
  if (!el || el.length === 0 || el.length === 0xffffffff) return undefined;
  const parts = raw(ds, el).split('\\');
  if (parts.length < count) return undefined;
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const v = parseFloat(parts[i]!);
    if (!Number.isFinite(v)) return undefined;
    out.push(v);
  }
  return out;
}

/** The first number of a DS or IS element: parseFloat stops at the first backslash, as numbers() splits. */
function num(ds: DataSet, tag: string): number | undefined {
  const el = ds.elements[tag];
  if (!el || el.length === 0 || el.length === 0xffffffff) return undefined;
  const v = parseFloat(raw(ds, el));
  return Number.isFinite(v) ? v : undefined;
}

/**
 * A value as dicom-parser's DataSet.string gives it (up to the first NUL, trimmed, or undefined when
 * empty), decoded by Node in one call rather than character by character; it fails as that does
 * when the value runs past the bytes.
 */
export function fixedText(ds: DataSet, tag: string): string | undefined {
  const el = ds.elements[tag] as (Element & { Value?: string }) | undefined;
  if (el?.Value) return el.Value;
  if (!el || !(el.length > 0)) return undefined;
  if (el.dataOffset + el.length > ds.byteArray.length)
    throw new DicomParseError(
      'its header is cut off or has wrong lengths',
      'dicomParser.readFixedString: attempt to read past end of buffer',
    );
  const s = raw(ds, el);
  const nul = s.indexOf('\0');
  return (nul >= 0 ? s.slice(0, nul) : s).trim();
}

function us(ds: DataSet, tag: string): number | undefined {
  const el = ds.elements[tag];
  if (!el || el.length < 2) return undefined;
  return ds.uint16(tag);
}

/** First item's data set of a sequence, if any. */
function item(ds: DataSet | undefined, tag: string): DataSet | undefined {
  const el: Element | undefined = ds?.elements[tag];
  return el?.items?.[0]?.dataSet;
}

const SHARED_GROUPS = 'x52009229';
const PER_FRAME_GROUPS = 'x52009230';
const PLANE_POSITION = 'x00209113';
const PLANE_ORIENTATION = 'x00209116';
const PIXEL_MEASURES = 'x00289110';
const PIXEL_VALUE_TRANSFORMATION = 'x00289145';
const FRAME_VOI_LUT = 'x00289132';

function frameFrom(groups: (DataSet | undefined)[], fallback: FrameInfo): FrameInfo {
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
    return p ? (numbers(p, 'x00200032', 3) as Vec3 | undefined) : undefined;
  });
  const orientation = pick((g) => {
    const o = item(g, PLANE_ORIENTATION);
    return o ? (numbers(o, 'x00200037', 6) as FrameInfo['orientation']) : undefined;
  });
  const pixelSpacing = pick((g) => {
    const m = item(g, PIXEL_MEASURES);
    return m ? (numbers(m, 'x00280030', 2) as [number, number] | undefined) : undefined;
  });
  const slope = pick((g) => {
    const t = item(g, PIXEL_VALUE_TRANSFORMATION);
    return t ? num(t, 'x00281053') : undefined;
  });
  const intercept = pick((g) => {
    const t = item(g, PIXEL_VALUE_TRANSFORMATION);
    return t ? num(t, 'x00281052') : undefined;
  });
  const frame: FrameInfo = { slope: slope ?? fallback.slope, intercept: intercept ?? fallback.intercept };
  const pos = position ?? fallback.position;
  const ori = orientation ?? fallback.orientation;
  const sp = pixelSpacing ?? fallback.pixelSpacing;
  if (pos) frame.position = pos;
  if (ori) frame.orientation = ori;
  if (sp) frame.pixelSpacing = sp;
  return frame;
}

/** Extracts the fields scan2mesh uses. Values are plain strings/numbers; absent text is ''. */
export function headerFields(path: string, fileSize: number, parsed: ParsedDicom): DicomHeader {
  const ds = parsed.dataSet;
  const utf8 = /ISO_IR 192/i.test(fixedText(ds, CHARSET) ?? '');
  const t = (tag: string): string => text(ds, tag, utf8);
  const uid = (tag: string): string => t(tag).replace(/\0/g, '');
  const numberOfFrames = boundedFrameCount(ds, parsed, fileSize);
  const topFrame: FrameInfo = {
    slope: num(ds, 'x00281053') ?? 1,
    intercept: num(ds, 'x00281052') ?? 0,
  };
  const pos = numbers(ds, 'x00200032', 3) as Vec3 | undefined;
  const ori = numbers(ds, 'x00200037', 6) as FrameInfo['orientation'];
  const sp = (numbers(ds, 'x00280030', 2) ?? numbers(ds, 'x00181164', 2)) as [number, number] | undefined;
  if (pos) topFrame.position = pos;
  if (ori) topFrame.orientation = ori;
  if (sp) topFrame.pixelSpacing = sp;

  const shared = item(ds, SHARED_GROUPS);
  const perFrameItems = ds.elements[PER_FRAME_GROUPS]?.items ?? [];
  let frames: FrameInfo[];
  if (shared || perFrameItems.length > 0) {
    frames = [];
    for (let i = 0; i < numberOfFrames; i++)
      frames.push(frameFrom([perFrameItems[i]?.dataSet, shared], topFrame));
  } else if (numberOfFrames > 1) {
    // A multi-frame file without functional groups gives one position for all its frames: only the
    // first frame's is known, and the others are laid out from it (see layoutSlices).
    const { position: _first, ...rest } = topFrame;
    frames = Array.from({ length: numberOfFrames }, (_, i) => (i === 0 ? topFrame : { ...rest }));
  } else {
    frames = [topFrame];
  }

  let windowCenter = num(ds, 'x00281050');
  let windowWidth = num(ds, 'x00281051');
  if (windowCenter === undefined || windowWidth === undefined) {
    const voi = item(shared, FRAME_VOI_LUT) ?? item(perFrameItems[0]?.dataSet, FRAME_VOI_LUT);
    if (voi) {
      windowCenter = num(voi, 'x00281050');
      windowWidth = num(voi, 'x00281051');
    }
  }

  const px = ds.elements[PIXEL_DATA];
  const header: DicomHeader = {
    path,
    fileSize,
    transferSyntaxUid: parsed.transferSyntaxUid,
    sopClassUid: uid('x00080016'),
    sopInstanceUid: uid('x00080018'),
    studyUid: uid('x0020000d'),
    seriesUid: uid('x0020000e'),
    frameOfReferenceUid: uid('x00200052'),
    patientName: t('x00100010').replace(/\^+$/, ''),
    patientId: t('x00100020'),
    patientBirthDate: t('x00100030'),
    studyDate: t('x00080020'),
    studyDescription: t('x00081030'),
    seriesDescription: t('x0008103e'),
    modality: t('x00080060').toUpperCase(),
    manufacturer: t('x00080070'),
    imageType: t('x00080008'),
    rows: us(ds, 'x00280010') ?? 0,
    columns: us(ds, 'x00280011') ?? 0,
    samplesPerPixel: us(ds, 'x00280002') ?? 1,
    photometric: t('x00280004').toUpperCase(),
    bitsAllocated: us(ds, 'x00280100') ?? 0,
    bitsStored: us(ds, 'x00280101') ?? us(ds, 'x00280100') ?? 0,
    pixelRepresentation: us(ds, 'x00280103') ?? 0,
    numberOfFrames,
    frames,
  };
  const seriesNumber = num(ds, 'x00200011');
  const instanceNumber = num(ds, 'x00200013');
  const thickness = num(ds, 'x00180050') ?? num(item(shared, PIXEL_MEASURES) ?? ds, 'x00180050');
  const between = num(ds, 'x00180088');
  const planar = us(ds, 'x00280006');
  if (header.samplesPerPixel > 1 && planar !== undefined) header.planarConfiguration = planar;
  if (seriesNumber !== undefined) header.seriesNumber = seriesNumber;
  if (instanceNumber !== undefined) header.instanceNumber = instanceNumber;
  if (thickness !== undefined) header.sliceThickness = thickness;
  if (between !== undefined) header.spacingBetweenSlices = between;
  const burnedIn = t('x00280301').toUpperCase();
  if (burnedIn) header.burnedInAnnotation = burnedIn;
  const gridOffsets = numberOfFrames > 1 ? numbers(ds, 'x3004000c', numberOfFrames) : undefined;
  if (gridOffsets) header.gridFrameOffsets = gridOffsets;
  if (windowCenter !== undefined && windowWidth !== undefined && windowWidth > 0) {
    header.windowCenter = windowCenter;
    header.windowWidth = windowWidth;
  }
  if (px) {
    const encapsulated = px.hadUndefinedLength === true || px.encapsulatedPixelData === true;
    const end =
      parsed.fileOffset === undefined || encapsulated ? 0 : parsed.fileOffset + px.dataOffset + px.length;
    header.pixelData = {
      offset: px.dataOffset,
      length: px.length,
      encapsulated,
      missingBytes: Math.max(0, end - fileSize),
    };
  }
  return header;
}

/** Bytes one uncompressed frame takes: YBR_FULL_422 stores two samples per pixel (Y Y Cb Cr per pair). */
export function uncompressedFrameBytes(
  h: Pick<DicomHeader, 'rows' | 'columns' | 'samplesPerPixel' | 'bitsAllocated' | 'photometric'>,
): number {
  const samples = h.photometric === 'YBR_FULL_422' && h.samplesPerPixel === 3 ? 2 : h.samplesPerPixel;
  return Math.ceil((h.rows * h.columns * samples * h.bitsAllocated) / 8);
}

/**
 * Frames one file may hold, whatever its header says: far beyond any scan (a CBCT has a few hundred
 * to two thousand slices), and small enough that the per-frame list costs little.
 */
export const MAX_FRAMES = 50_000;

/** The smallest encapsulated frame: an item tag and length (8 bytes) and at least one byte. */
const MIN_ENCAPSULATED_FRAME = 9;

/**
 * Number of Frames, checked against the bytes the file has before anything is allocated for it:
 * a header may claim 3,000,000 or 99,999,999,999 frames. Throws DicomParseError (in words) when the
 * claim cannot be true.
 */
function boundedFrameCount(ds: DataSet, parsed: ParsedDicom, fileSize: number): number {
  const claimed = Math.max(1, Math.round(num(ds, 'x00280008') ?? 1));
  const px = ds.elements[PIXEL_DATA];
  // Without an image the count means nothing; do not build per-frame lists for it.
  if (!px || claimed === 1) return 1;
  const said = (n: number): string => n.toLocaleString('en-US');
  const tooMany = (room: number): DicomParseError =>
    new DicomParseError(
      `its header says it holds ${said(claimed)} images, but it has room for ${room === 1 ? 'only one' : `at most ${said(room)}`}`,
    );
  // Bytes from the start of the pixel data to the end of what there is (the file, or the inflated data set).
  const present =
    parsed.fileOffset === undefined
      ? ds.byteArray.length - px.dataOffset
      : fileSize - parsed.fileOffset - px.dataOffset;
  const encapsulated = px.hadUndefinedLength === true || px.encapsulatedPixelData === true;
  if (encapsulated) {
    // An offset-table item, then at least one fragment per frame.
    const room = Math.max(1, Math.floor((present - 8) / MIN_ENCAPSULATED_FRAME));
    if (claimed > room) throw tooMany(room);
  } else {
    const frameBytes = uncompressedFrameBytes({
      rows: us(ds, 'x00280010') ?? 0,
      columns: us(ds, 'x00280011') ?? 0,
      samplesPerPixel: us(ds, 'x00280002') ?? 1,
      bitsAllocated: us(ds, 'x00280100') ?? 0,
      photometric: text(ds, 'x00280004', false).toUpperCase(),
    });
    // A file cut off inside its pixels is told apart later (truncated-file): the declared length counts here.
    if (frameBytes > 0) {
      const room = Math.max(1, Math.ceil(px.length / frameBytes));
      if (claimed > room) throw tooMany(room);
    }
  }
  if (claimed > MAX_FRAMES) {
    throw new DicomParseError(
      `its header says it holds ${said(claimed)} images, more than the ${said(MAX_FRAMES)} scan2mesh reads from one file`,
    );
  }
  return claimed;
}
