// Multi-frame Enhanced CT files made in the tests from the real cranium CT's slices (the frames are
// the fixture's pixels and true positions), with one thing at a time wrong in their headers.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import dicomParser from 'dicom-parser';
import { FIXTURES } from './scans.test-support.js';

type Vec3 = [number, number, number];

export interface CtFrame {
  /** Stored values, 16 bits little endian. */
  pixels: Buffer;
  /** Image Position (Patient) of the frame; none: the frame gives no Plane Position. */
  position?: Vec3;
  /** Stack ID (0020,9056) in the frame's Frame Content; none: no Stack ID. */
  stackId?: string;
  /** The frame's own Plane Orientation, over the shared one (the cranium's, axial). */
  orientation?: number[];
}

/** One slice's frame, and what the series shares. */
interface CraniumSlice extends Required<Omit<CtFrame, 'stackId' | 'orientation'>> {
  rows: number;
  columns: number;
  spacing: [number, number];
  orientation: number[];
  intercept: number;
  patientName: string;
  patientId: string;
  studyUid: string;
  frameOfReference: string;
}

let cranium: CraniumSlice[] | undefined;

/** The human cranium CT's 108 slices, feet to head (z 0 to 160.5 mm, 1.5 mm apart). */
export function craniumSlices(): CraniumSlice[] {
  if (cranium) return cranium;
  const dir = join(FIXTURES, 'ct-human-cranium-teeth');
  cranium = readdirSync(dir)
    .map((name) => {
      const bytes = readFileSync(join(dir, name));
      const ds = dicomParser.parseDicom(bytes);
      const px = ds.elements.x7fe00010!;
      const nums = (tag: string, n: number): number[] =>
        Array.from({ length: n }, (_, i) => ds.floatString(tag, i) ?? NaN);
      return {
        pixels: Buffer.from(bytes.subarray(px.dataOffset, px.dataOffset + px.length)),
        position: nums('x00200032', 3) as Vec3,
        rows: ds.uint16('x00280010')!,
        columns: ds.uint16('x00280011')!,
        spacing: nums('x00280030', 2) as [number, number],
        orientation: nums('x00200037', 6),
        intercept: ds.floatString('x00281052') ?? 0,
        patientName: ds.string('x00100010') ?? '',
        patientId: ds.string('x00100020') ?? '',
        studyUid: ds.string('x0020000d') ?? '',
        frameOfReference: ds.string('x00200052') ?? '',
      };
    })
    .sort((a, b) => a.position[2] - b.position[2]);
  return cranium;
}

export interface EnhancedOptions {
  /** Number of Frames as the header states it; the frames' count when absent. */
  numberOfFrames?: number;
  /** How many frames the Per-Frame Functional Groups describe; the frames' count when absent. */
  perFrameItems?: number;
  /** A top-level Image Position (Patient), as some converters write besides the per-frame ones. */
  topLevelPosition?: Vec3;
  spacingBetweenSlices?: number;
  /** Told apart in the file's SOP Instance UID: the files of one series made one by one. */
  instance?: number;
  /**
   * A legacy multi-frame CT instead (CT Image Storage): no functional groups, the orientation, pixel
   * size and rescale at the top level, and one Image Position, the first frame's.
   */
  legacy?: boolean;
  /** A part of a concatenation: Concatenation UID, In-concatenation Number and (when given) Total. */
  concatenation?: { uid: string; number: number; total?: number };
}

const ENHANCED_CT = '1.2.840.10008.5.1.4.1.1.2.1';
const CT_IMAGE = '1.2.840.10008.5.1.4.1.1.2';
const EXPLICIT_LE = '1.2.840.10008.1.2.1';
const LONG_VRS = new Set(['OB', 'OW', 'SQ', 'UN', 'UT']);

function element(tag: number, vr: string, value: Buffer | string): Buffer {
  let v = typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
  if (v.length % 2) v = Buffer.concat([v, Buffer.from(vr === 'UI' ? [0] : [0x20])]);
  const long = LONG_VRS.has(vr);
  const head = Buffer.alloc(long ? 12 : 8);
  head.writeUInt16LE(tag >>> 16, 0);
  head.writeUInt16LE(tag & 0xffff, 2);
  head.write(vr, 4, 'latin1');
  if (long) head.writeUInt32LE(v.length, 8);
  else head.writeUInt16LE(v.length, 6);
  return Buffer.concat([head, v]);
}

const us = (v: number): Buffer => Buffer.from(new Uint16Array([v]).buffer);
const ds = (v: number[]): string => v.map((x) => String(+x.toFixed(6))).join('\\');

/** A sequence of items, each the concatenation of its elements (in tag order), of defined length. */
const sequence = (tag: number, items: Buffer[][]): Buffer =>
  element(
    tag,
    'SQ',
    Buffer.concat(
      items.map((els) => {
        const body = Buffer.concat(els);
        const head = Buffer.from([0xfe, 0xff, 0x00, 0xe0, 0, 0, 0, 0]);
        head.writeUInt32LE(body.length, 4);
        return Buffer.concat([head, body]);
      }),
    ),
  );

/**
 * An Enhanced CT file (explicit VR little endian, uncompressed) holding `frames`, described by
 * shared functional groups (orientation, pixel size, rescale of the cranium) and one per-frame item
 * per frame (Frame Content with the Stack ID, Plane Position); `o` makes its header disagree, or
 * makes it a legacy multi-frame file.
 */
export function enhancedCt(frames: CtFrame[], o: EnhancedOptions = {}): Buffer {
  const s = craniumSlices()[0]!;
  const sop = `1.2.826.0.1.3680043.8.498.1.${o.instance ?? 0}`;
  const sopClass = o.legacy ? CT_IMAGE : ENHANCED_CT;
  const legacy = (...els: Buffer[]): Buffer[] => (o.legacy ? els : []);
  const topLevelPosition = o.topLevelPosition ?? (o.legacy ? frames[0]!.position : undefined);
  const meta = Buffer.concat([
    element(0x00020001, 'OB', Buffer.from([0, 1])),
    element(0x00020002, 'UI', sopClass),
    element(0x00020003, 'UI', sop),
    element(0x00020010, 'UI', EXPLICIT_LE),
  ]);
  const groupLength = Buffer.alloc(4);
  groupLength.writeUInt32LE(meta.length);
  const described = o.perFrameItems ?? frames.length;
  const perFrame = Array.from({ length: described }, (_, i) => {
    const f = frames[i % frames.length]!;
    const content = f.stackId !== undefined ? [element(0x00209056, 'SH', f.stackId)] : [];
    const item = [sequence(0x00209111, [[...content, element(0x00209057, 'UL', Buffer.alloc(4))]])];
    if (f.position) item.push(sequence(0x00209113, [[element(0x00200032, 'DS', ds(f.position))]]));
    if (f.orientation) item.push(sequence(0x00209116, [[element(0x00200037, 'DS', ds(f.orientation))]]));
    return item;
  });
  const shared = [
    sequence(0x00209116, [[element(0x00200037, 'DS', ds(s.orientation))]]),
    sequence(0x00289110, [[element(0x00180050, 'DS', '1.5'), element(0x00280030, 'DS', ds(s.spacing))]]),
    sequence(0x00289145, [
      [
        element(0x00281052, 'DS', String(s.intercept)),
        element(0x00281053, 'DS', '1'),
        element(0x00281054, 'LO', 'HU'),
      ],
    ]),
  ];
  const body = [
    element(0x00080008, 'CS', 'ORIGINAL\\PRIMARY\\AXIAL\\NONE'),
    element(0x00080016, 'UI', sopClass),
    element(0x00080018, 'UI', sop),
    element(0x00080060, 'CS', 'CT'),
    element(0x00100010, 'PN', s.patientName),
    element(0x00100020, 'LO', s.patientId),
    ...legacy(element(0x00180050, 'DS', '1.5')),
    ...(o.spacingBetweenSlices ? [element(0x00180088, 'DS', String(o.spacingBetweenSlices))] : []),
    element(0x0020000d, 'UI', s.studyUid),
    element(0x0020000e, 'UI', '1.2.826.0.1.3680043.8.498.2'),
    element(0x00200011, 'IS', '1'),
    element(0x00200013, 'IS', String(o.instance ?? 1)),
    ...(topLevelPosition ? [element(0x00200032, 'DS', ds(topLevelPosition))] : []),
    ...legacy(element(0x00200037, 'DS', ds(s.orientation))),
    element(0x00200052, 'UI', s.frameOfReference),
    ...(o.concatenation
      ? [
          element(0x00209161, 'UI', o.concatenation.uid),
          element(0x00209162, 'US', us(o.concatenation.number)),
          ...(o.concatenation.total ? [element(0x00209163, 'US', us(o.concatenation.total))] : []),
        ]
      : []),
    element(0x00280002, 'US', us(1)),
    element(0x00280004, 'CS', 'MONOCHROME2'),
    element(0x00280008, 'IS', String(o.numberOfFrames ?? frames.length)),
    element(0x00280010, 'US', us(s.rows)),
    element(0x00280011, 'US', us(s.columns)),
    ...legacy(element(0x00280030, 'DS', ds(s.spacing))),
    element(0x00280100, 'US', us(16)),
    element(0x00280101, 'US', us(16)),
    element(0x00280102, 'US', us(15)),
    element(0x00280103, 'US', us(1)),
    ...legacy(element(0x00281052, 'DS', String(s.intercept)), element(0x00281053, 'DS', '1')),
    ...(o.legacy ? [] : [sequence(0x52009229, [shared]), sequence(0x52009230, perFrame)]),
    element(0x7fe00010, 'OW', Buffer.concat(frames.map((f) => f.pixels))),
  ];
  return Buffer.concat([
    Buffer.alloc(128),
    Buffer.from('DICM', 'latin1'),
    element(0x00020000, 'UL', groupLength),
    meta,
    ...body,
  ]);
}

/** Frames of the cranium's slices `from` to `to` (not included), with their true positions. */
export function craniumFrames(from: number, to: number, stackId?: string): CtFrame[] {
  return craniumSlices()
    .slice(from, to)
    .map((s) => ({ pixels: s.pixels, position: s.position, ...(stackId ? { stackId } : {}) }));
}
