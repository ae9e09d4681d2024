import { boundedFrameCount, pixelDataOf } from './header-pixels.js';
import { HEADER_TAGS, TAG } from './header-tags.js';
import type { DicomHeader, FrameInfo, Vec3 } from './header-types.js';
import { hasValue, isUtf8, num, numbers, type TagTable, uid } from './header-values.js';

/**
 * The header of the file the tag-only reader last took as its template (see header-template.ts),
 * and the headers of the next files of its series made from it. Those files differ from it in
 * their UIDs, their instance number and their position (and in the meta header, which no header
 * field reads): when every other tag is the same bytes as the template's, or absent from both,
 * every other field is the same value, and the header is the template's with those three decoded.
 * Anything else (another tag that differs, a tag one has and the other lacks, several frames) is
 * read field by field (header-fields.ts).
 */
let model: DicomHeader | undefined;
let modelGeneration = -1;

/** Per tag: whether a file must have the template's bytes for it (SAME), lack it (ABSENT), or either. */
const EITHER = 0;
const SAME = 1;
const ABSENT = 2;
const need = new Uint8Array(HEADER_TAGS.length);
/** The tags a file may differ in: decoded for each file. The meta header's are no field's. */
const OWN = [TAG.sopInstance, TAG.instanceNumber, TAG.position, TAG.mediaStorageSopClass, TAG.transferSyntax];

/** Keeps the header of the template file itself (its table's tags are all the template's). */
export function keepModel(t: TagTable, header: DicomHeader): void {
  // A header with an unreadable number is no model: its files are read field by field, which notes them.
  if (header.numberOfFrames !== 1 || header.unreadableNumbers) {
    model = undefined;
    return;
  }
  for (let k = 0; k < need.length; k++) need[k] = t.offset[k]! < 0 ? ABSENT : SAME;
  for (const k of OWN) need[k] = EITHER;
  // A copy: the header itself goes to the caller, who may change it (tests do), and later files'
  // headers must not take that change from the model.
  model = structuredClone(header);
  modelGeneration = t.generation;
}

/**
 * The header of a file of the template's series, made from the template file's header; undefined
 * when the file differs from it in more than its own tags (it is then read field by field). Reads
 * that can fail run in the order header-fields' would run them.
 */
export function fromModel(
  path: string,
  fileSize: number,
  fileId: string,
  t: TagTable,
): DicomHeader | undefined {
  const m = model;
  if (!m || t.generation !== modelGeneration) return undefined;
  for (let k = 0; k < need.length; k++) {
    const n = need[k];
    if (n === SAME ? t.same[k] !== 1 : n === ABSENT && t.offset[k]! >= 0) return undefined;
  }
  const utf8 = isUtf8(t, TAG.charset);
  if (boundedFrameCount(t, fileSize) !== 1) return undefined;
  const pixelData = pixelDataOf(t, fileSize);
  const instanceNumber = num(t, TAG.instanceNumber);
  // The same fields in the same order as header-fields makes them, or that file's way is taken.
  if (!pixelData !== !m.pixelData || (instanceNumber === undefined) !== (m.instanceNumber === undefined))
    return undefined;
  const mt = m.frames[0]!;
  const top: FrameInfo = { slope: mt.slope, intercept: mt.intercept };
  const position = numbers(t, TAG.position, 3) as Vec3 | undefined;
  // A position written as no number is noted where the header is read field by field.
  if (!position && hasValue(t, TAG.position)) return undefined;
  if (position) top.position = position;
  if (mt.orientation) top.orientation = mt.orientation;
  if (mt.pixelSpacing) top.pixelSpacing = mt.pixelSpacing;
  const header: DicomHeader = {
    ...m,
    path,
    fileSize,
    fileId,
    transferSyntaxUid: t.transferSyntaxUid,
    sopInstanceUid: uid(t, TAG.sopInstance, utf8),
    frames: [top],
  };
  if (instanceNumber !== undefined) header.instanceNumber = instanceNumber;
  if (pixelData) header.pixelData = pixelData;
  return header;
}
