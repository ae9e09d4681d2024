import { dictionaryVr, VALUE_VM } from './deid-tables.js';
import { DS_VALUE } from './dicom-decimal.js';

/**
 * Whether a value the profile keeps (deid-profile.ts) is what its attribute says it is. Keeping an
 * attribute by its tag is safe only if its value is a number, a code or an image's bytes: a file
 * can store any bytes under any tag, so every kept value is checked against the dictionary's VR and
 * that VR's rules, value by value, and removed when it does not fit (never repaired: a repair would
 * be a guess). Per family:
 *
 * - Stored VR: in an explicit-VR file it must be one the dictionary allows for the tag. UN, a VR
 *   no standard knows, or a text VR under a number's tag means the value is not what the tag says.
 * - Binary numbers (US SS UL SL FL FD UV SV AT): a length that is a whole number of values, and as
 *   many values as the dictionary's VM allows (deid-multiplicity.generated.json). A tag (AT) must be
 *   one the dictionary knows: four bytes of a name are no attribute.
 * - DS and IS: decimal numbers only, each within the VR's length, as many as the VM allows (a birth
 *   date as the second value of Slice Thickness went out before).
 * - CS: as many values as the VM allows, each at most 16 characters of A-Z 0-9 and _ (PS3.5 6.2), with no space inside: a
 *   defined term joins words with _, so "DOE JANE" is a name, not a code. The two families whose
 *   defined terms have spaces (Photometric Interpretation's PALETTE COLOR, character sets) are
 *   checked against their terms instead. Image Type and Frame Type keep their values only as far
 *   as they are defined terms (deidentify keeps the leading ones, so each value keeps its place).
 * - Kept codes of another text VR (Rescale Type is LO) are checked as CS: their values are terms too.
 * - OB OW OF OD OL OV: kept only for pixel data (deid-profile.ts keeps no lookup table).
 */

/**
 * Whether `count` values are as many as a VM allows ("3", "1-2", "2-n", "3-3n"); any number when it
 * is not known (1-n). Bytes past the values an attribute holds are room for anything: 16 bytes of a
 * name under Acquisition Matrix, whose 4 values take 8.
 */
export function fitsVm(count: number, vm: string | undefined): boolean {
  if (vm === undefined) return true;
  const m = /^(\d+)(?:-(\d+)?(n)?)?$/.exec(vm);
  if (!m) return true;
  const lo = Number(m[1]);
  if (m[2] === undefined && m[3] === undefined) return count === lo; // "3"
  if (m[3] === undefined) return count >= lo && count <= Number(m[2]); // "1-2"
  if (m[2] === undefined) return count >= lo; // "2-n"
  return count >= lo && count % Number(m[2]) === 0; // "2-2n"
}

/** Bytes per value of the binary number VRs. */
const BINARY_SIZE: Record<string, number> = { US: 2, SS: 2, UL: 4, SL: 4, FL: 4, FD: 8, UV: 8, SV: 8, AT: 4 };

const BULK_VRS = new Set(['OB', 'OW', 'OF', 'OD', 'OL', 'OV']);

const IS_VALUE = /^ *[+-]?\d+ *$/;
const CS_VALUE = /^ *[A-Z0-9_]* *$/;

const PHOTOMETRIC = new Set([
  'MONOCHROME1',
  'MONOCHROME2',
  'PALETTE COLOR',
  'RGB',
  'YBR_FULL',
  'YBR_FULL_422',
  'YBR_PARTIAL_420',
  'YBR_PARTIAL_422',
  'YBR_ICT',
  'YBR_RCT',
]);

/** Image Type / Frame Type (PS3.3 C.7.6.1.1.2, C.8.15.3.1.1, C.8.16.1): defined terms by position. */
const TYPE_TERMS: readonly (readonly string[])[] = [
  ['ORIGINAL', 'DERIVED', 'MIXED'],
  ['PRIMARY', 'SECONDARY', 'MIXED'],
  ['AXIAL', 'LOCALIZER', 'VOLUME', 'REFORMATTED', 'MPR', 'MIP', 'MINIP', 'PROJECTION', 'OTHER', 'MIXED'],
  [
    'NONE',
    'MIXED',
    'RESAMPLED',
    'SUBTRACTION',
    'FILTERED',
    'MIP',
    'MINIP',
    'MPR',
    'CURVED_MPR',
    'VOLUME_RENDER',
  ],
];
const TYPE_TAGS = new Set([0x00080008, 0x00089007]);

const PHOTOMETRIC_TAG = 0x00280004;

const terms = (...t: string[]): ((s: string) => boolean) => {
  const set = new Set(t);
  return (s) => set.has(s);
};

/**
 * The code strings kept outside Table E.1-1 (deid-profile.ts) and the values each may hold: its
 * defined terms in PS3.3 where the standard lists them. A code string is any 16 characters of A-Z,
 * 0-9 and _, enough for "DOEJOHN" or a record number; one checked only for its characters is a place
 * to hide them (an audit kept DOEXJOHNATHAN\MRN4711815 as a Patient Orientation). Photometric
 * Interpretation, Image Type and Frame Type have checks of their own (checkedCodes).
 */
const CODE_TERMS = new Map<number, (s: string) => boolean>([
  // Modality (C.7.3.1.1.1), the defined terms in use and retired alike
  [
    0x00080060,
    terms(
      ...['AR', 'ASMT', 'AU', 'BDUS', 'BI', 'BMD', 'CR', 'CT', 'CTPROTOCOL', 'DG', 'DOC', 'DX', 'ECG'],
      ...['EPS', 'ES', 'FID', 'GM', 'HC', 'HD', 'IO', 'IOL', 'IVOCT', 'IVUS', 'KER', 'KO', 'LEN', 'LS'],
      ...['MG', 'MR', 'M3D', 'NM', 'OAM', 'OCT', 'OP', 'OPM', 'OPT', 'OPTBSV', 'OPTENF', 'OPV', 'OSS'],
      ...['OT', 'PLAN', 'PR', 'PT', 'PX', 'REG', 'RESP', 'RF', 'RG', 'RTDOSE', 'RTIMAGE', 'RTINTENT'],
      ...['RTPLAN', 'RTRAD', 'RTRECORD', 'RTSEGANN', 'RTSTRUCT', 'RWV', 'SEG', 'SM', 'SMR', 'SR', 'SRF'],
      ...['STAIN', 'TEXTUREMAP', 'TG', 'US', 'VA', 'XA', 'XAPROTOCOL', 'XC', 'DS', 'DM', 'EC', 'CD'],
      ...['CF', 'CP', 'CS', 'DD', 'DF', 'FA', 'LP', 'MA', 'MS', 'OPR', 'ST', 'VF'],
    ),
  ],
  [0x00089205, terms('MONOCHROME', 'COLOR', 'MIXED', 'TRUE_COLOR')], // Pixel Presentation
  [0x00089206, terms('VOLUME', 'SAMPLED', 'DISTORTED', 'MIXED')], // Volumetric Properties
  [
    0x00089207, // Volume Based Calculation Technique
    terms('MAX_IP', 'MIN_IP', 'VOLUME_RENDER', 'SURFACE_RENDER', 'MPR', 'CURVED_MPR', 'NONE', 'MIXED'),
  ],
  [
    0x00185100, // Patient Position
    terms(
      ...['HFP', 'HFS', 'HFDR', 'HFDL', 'FFDR', 'FFDL', 'FFP', 'FFS', 'LFP', 'LFS', 'RFP', 'RFS'],
      ...['AFDR', 'AFDL', 'PFDR', 'PFDL'],
    ),
  ],
  [0x00189302, terms('SEQUENCED', 'SPIRAL', 'CONSTANT_ANGLE', 'STATIONARY', 'FREE')], // Acquisition Type
  // Patient Orientation: the directions of rows and columns, each up to three of A P L R H F.
  [0x00200020, (s) => /^[APLRHF]{1,3}$/.test(s)],
  [0x00281040, terms('LIN', 'LOG', 'DISP')], // Pixel Intensity Relationship
  // Rescale Type (C.11.1.1.2)
  [0x00281054, terms('OD', 'HU', 'US', 'MGML', 'Z_EFF', 'ED', 'EDW', 'HU_MOD', 'PCT')],
  [0x00281056, terms('LINEAR', 'LINEAR_EXACT', 'SIGMOID')], // VOI LUT Function
  [0x00282110, terms('00', '01')], // Lossy Image Compression
  // Lossy Image Compression Method (C.7.6.1.1.5): the standards' names, not any digits after ISO_
  [
    0x00282114,
    terms(
      ...['ISO_10918_1', 'ISO_14495_1', 'ISO_15444_1', 'ISO_15444_15', 'ISO_13818_2', 'ISO_14496_10'],
      ...['ISO_23008_2', 'ISO_18181_1'],
    ),
  ],
  [0x00280301, terms('YES', 'NO')], // Burned In Annotation
  [0x00280302, terms('YES', 'NO')], // Recognizable Visual Features
  [0x00280303, terms('UNMODIFIED', 'MODIFIED', 'REMOVED')], // Longitudinal Temporal Information Modified
  [0x20500020, terms('IDENTITY', 'INVERSE')], // Presentation LUT Shape
]);

/** Every code string de-identification keeps outside Table E.1-1: each is checked for its terms here. */
export const KEPT_CODE_TAGS: ReadonlySet<number> = new Set([
  ...CODE_TERMS.keys(),
  ...TYPE_TAGS,
  PHOTOMETRIC_TAG,
]);

/** What the checks need to know of the file and the element. */
export interface KeptValue {
  tag: number;
  /** The dictionary's VR ("US|SS" for a choice). */
  dictVr: string;
  /** The VR the file states (explicit VR), or undefined (implicit VR). */
  storedVr: string | undefined;
  bytes: Uint8Array;
  /** Whether the file's binary numbers are little endian (for the tags of AT values). */
  littleEndian: boolean;
  /** The image's Number of Frames (what a Dimension Index Value may count up to). */
  frames: number;
}

const DIMENSION_INDEX_VALUES = 0x00209157;
const IN_STACK_POSITION = 0x00209057;
const SERIES_NUMBER = 0x00200011;
/** Slice Thickness and Spacing Between Slices, and the most either can be in a CT (mm). */
const SLICE_MILLIMETRES = new Set([0x00180050, 0x00180088]);
const MAX_SLICE_MM = 100;
const MAX_DIMENSIONS = 4;
const GRID_FRAME_OFFSETS = 0x3004000c;

/** Whether every UL value is an index from 1 to the frame count: four bytes of text are no index. */
function indicesOfFrames(bytes: Uint8Array, littleEndian: boolean, frames: number): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at + 4 <= bytes.length; at += 4) {
    const v = view.getUint32(at, littleEndian);
    if (v < 1 || v > Math.max(1, frames)) return false;
  }
  return true;
}

/**
 * The bytes to write for a kept value: the value itself, a shorter prefix of it (Image Type), or
 * undefined when it has to be removed.
 */
export function checkedValue(v: KeptValue): Uint8Array | undefined {
  const allowed = v.dictVr.split('|');
  if (v.storedVr !== undefined && !allowed.includes(v.storedVr)) return undefined;
  const vr = v.storedVr ?? allowed[0]!;
  if (v.bytes.length === 0) return v.bytes;
  const size = BINARY_SIZE[vr];
  if (size !== undefined) {
    if (v.bytes.length % size !== 0 || !fitsVm(v.bytes.length / size, VALUE_VM.get(v.tag))) return undefined;
    // An index per dimension (a CT has two or three): more is a list of numbers of any meaning.
    if (
      v.tag === DIMENSION_INDEX_VALUES &&
      (v.bytes.length / size > MAX_DIMENSIONS || !indicesOfFrames(v.bytes, v.littleEndian, v.frames))
    )
      return undefined;
    // A frame's place in its stack counts at most the frames: a UL of any size held 99887766.
    if (v.tag === IN_STACK_POSITION && !indicesOfFrames(v.bytes, v.littleEndian, v.frames)) return undefined;
    return vr !== 'AT' || knownTags(v.bytes, v.littleEndian) ? v.bytes : undefined;
  }
  if (BULK_VRS.has(vr)) return v.bytes;
  const text = Buffer.from(v.bytes.buffer, v.bytes.byteOffset, v.bytes.byteLength).toString('latin1');
  const all = text.replace(/[\0 ]+$/, '').split('\\');
  // Empty values at the end ("0\0\10.5\") are none: read so when the files are looked at, too.
  let count = all.length;
  while (count > 1 && all[count - 1]!.trim() === '') count--;
  const values = all.slice(0, count);
  // Image Type and Frame Type keep their leading defined terms (checkedCodes), however many follow.
  if (!TYPE_TAGS.has(v.tag) && !fitsVm(values.length, VALUE_VM.get(v.tag))) return undefined;
  // Grid offsets are one per frame of a multi-frame file, and nothing in a file of one (a review
  // kept 700 of them).
  if (v.tag === GRID_FRAME_OFFSETS && (v.frames < 2 || values.length !== v.frames)) return undefined;
  const asIs = count === all.length ? v.bytes : Buffer.from(padEven(values.join('\\')), 'latin1');
  // Rescale Type is LO in PS3.6, yet its values are defined terms: a kept code of any text VR is
  // checked as one (a switch on CS alone removed it, and a CT in US units was then read as HU).
  if (vr === 'CS' || KEPT_CODE_TAGS.has(v.tag)) return checkedCodes(v.tag, values);
  switch (vr) {
    case 'DS': {
      if (!values.every((s) => s === '' || DS_VALUE.test(s))) return undefined;
      // A slice's thickness and spacing are millimetres, not eight digits of a record number: past
      // what any scanner writes they are sent empty (both are Type 2 or 3).
      if (SLICE_MILLIMETRES.has(v.tag) && values.some((s) => !(Math.abs(Number(s)) <= MAX_SLICE_MM)))
        return new Uint8Array(0);
      // A number written with more than DS's 16 characters (pydicom reads it, and so does the app)
      // is written again within them: the file was refused after the job had started (a review).
      if (values.every((s) => s.length <= 16)) return asIs;
      return Buffer.from(padEven(values.map((s) => (s.length <= 16 ? s : within16(s))).join('\\')), 'latin1');
    }
    case 'IS':
      if (!values.every((s) => s.length <= 12 && (s === '' || IS_VALUE.test(s)))) return undefined;
      return v.tag === SERIES_NUMBER ? renumberedSeries(values) : asIs;
    default:
      return undefined; // text of any other VR is never kept by its tag
  }
}

/**
 * Series Number as the upload carries it: 1, the package's one series. A scanner writes 1, 201 or
 * 20001 alike, so no bound tells a number from eight digits of a record number or birth date (a
 * review sent 99887766); the receiver groups slices by Series Instance UID, not by this number.
 */
function renumberedSeries(values: string[]): Uint8Array {
  return Buffer.from(values.length === 1 && values[0]!.trim() === '' ? '' : '1 ', 'latin1');
}

/** Whether every AT value names a public attribute the dictionary knows. */
function knownTags(bytes: Uint8Array, littleEndian: boolean): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at + 4 <= bytes.length; at += 4) {
    const group = view.getUint16(at, littleEndian);
    const element = view.getUint16(at + 2, littleEndian);
    const tag = ((group << 16) | element) >>> 0;
    if (group % 2 === 1 || dictionaryVr(tag) === undefined) return false;
  }
  return true;
}

function checkedCodes(tag: number, values: string[]): Uint8Array | undefined {
  const ok = (s: string): boolean => s.length <= 16 && CS_VALUE.test(s) && !/\S +\S/.test(s);
  let kept = values;
  if (tag === PHOTOMETRIC_TAG) {
    if (values.length !== 1 || !PHOTOMETRIC.has(values[0]!.trim())) return undefined;
  } else if (TYPE_TAGS.has(tag)) {
    // Values keep their meaning by position: keep the leading ones that are defined terms.
    const first = values.findIndex((s, i) => !(TYPE_TERMS[i] ?? []).includes(s.trim()));
    kept = first === -1 ? values : values.slice(0, first);
    if (kept.length === 0) return undefined;
  } else {
    const isTerm = CODE_TERMS.get(tag);
    if (!values.every((s) => ok(s) && (!isTerm || s.trim() === '' || isTerm(s.trim())))) return undefined;
  }
  return Buffer.from(padEven(kept.join('\\')), 'latin1');
}

/** A decimal number in at most 16 characters, to the precision they hold (15 significant digits or more). */
function within16(s: string): string {
  const n = Number(s.trim());
  const plain = String(n).replace('e', 'E');
  if (plain.length <= 16) return plain;
  for (let digits = 15; digits > 1; digits--) {
    const t = n.toPrecision(digits).replace('e', 'E');
    if (t.length <= 16) return t;
  }
  return n.toExponential(1).toUpperCase();
}

function padEven(s: string): string {
  return s.length % 2 === 0 ? s : `${s} `;
}
