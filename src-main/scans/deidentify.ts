import { createHash, randomBytes } from 'node:crypto';
import type { DataSet, Element } from 'dicom-parser';
import { AppError } from '../../src-shared/errors.js';
import { PIXEL_DATA, type ParsedDicom } from './dicom-file.js';
import {
  cleanNativePixels,
  nativeFromEncapsulated,
  pixelFacts,
  PixelsRefused,
  type PixelFacts,
} from './deid-pixels.js';
import { deidDecision, keepsUid } from './deid-profile.js';
import { dictionaryVr } from './deid-tables.js';
import { tagWords } from './tag-words.js';
import { checkedValue } from './deid-values.js';
import { DEFLATED_LE, EXPLICIT_LE, transferSyntax } from './transfer-syntax.js';

const INSTANCE_NUMBER = 'x00200013';
import { Encoder, metaHeader, padded, ValueTooLong } from './deid-encoder.js';

/**
 * Replaces UIDs consistently within one package: the same original UID always maps to the same
 * new one, so the slices still form one series of one study. The salt is random per package, so
 * a new UID cannot be traced back by hashing candidate originals.
 */
export class UidMapper {
  private readonly salt = randomBytes(16);
  private readonly map = new Map<string, string>();

  uid(original: string): string {
    let out = this.map.get(original);
    if (!out) {
      const digest = createHash('sha256').update(this.salt).update(original).digest();
      // 2.25.<integer of 120 random-looking bits>: a UID form that needs no registered root (PS3.5 B.2).
      out = `2.25.${BigInt(`0x${digest.subarray(0, 15).toString('hex')}`).toString(10)}`;
      this.map.set(original, out);
    }
    return out;
  }
}

function stringValue(ds: DataSet, el: Element): string {
  return Buffer.from(ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length))
    .toString('latin1')
    .replace(/[\0 ]+$/, '');
}

/** A value that says nothing, valid for its VR (PS3.15 action D); undefined: write it empty. */
function dummyText(vr: string): string | undefined {
  switch (vr) {
    case 'DA':
      return '19000101';
    case 'TM':
      return '000000';
    case 'DT':
      return '19000101000000';
    case 'AS':
      return '000D';
    case 'DS':
    case 'IS':
      return '0';
    case 'AE':
    case 'CS':
    case 'LO':
    case 'LT':
    case 'PN':
    case 'SH':
    case 'ST':
    case 'UC':
    case 'UT':
      return 'ANONYMIZED';
    default:
      return undefined; // binary, UR, SQ: an empty value is the dummy
  }
}

/** At most 64 characters: Deidentification Method is LO (PS3.5 6.2). */
export const DEIDENTIFICATION_METHOD = 'DICOM PS3.15 Basic Application Confidentiality Profile';
/** PS3.16 CID 7050: the code for the profile applied. */
const METHOD_CODE = { value: '113100', scheme: 'DCM', meaning: 'Basic Application Confidentiality Profile' };

/** Written by this module at the top level; copies from the input are dropped so none is doubled. */
const WRITTEN_HERE = new Set(['x00120062', 'x00120063', 'x00120064', 'x00280303']);

/**
 * Attributes without which the image cannot be read: one whose value fails its check
 * (deid-values.ts) is not dropped quietly, the file is refused (a broken image is not sent).
 */
const NEEDED: Record<string, string> = {
  x00280002: 'Samples per Pixel',
  x00280004: 'Photometric Interpretation',
  x00280008: 'Number of Frames',
  x00280010: 'Rows',
  x00280011: 'Columns',
  x00280030: 'Pixel Spacing',
  x00280100: 'Bits Allocated',
  x00280101: 'Bits Stored',
  x00280102: 'High Bit',
  x00280103: 'Pixel Representation',
  x00281052: 'Rescale Intercept',
  x00281053: 'Rescale Slope',
  x00200032: 'Image Position (Patient)',
  x00200037: 'Image Orientation (Patient)',
  x7fe00010: 'Pixel Data',
};

interface Context {
  enc: Encoder;
  uids: UidMapper;
  inputTsUid: string;
  parsed: ParsedDicom;
  photometric: string;
  pixels: PixelFacts | undefined;
  /** The file's place along its series in the package, from 1: what its Instance Number becomes. */
  place: number;
}

const article = (word: string): string => (/^[AEIOU]/i.test(word) ? 'an' : 'a');

/** A file that cannot be de-identified as it is, refused in words before anything is sent. */
function refused(why: string): AppError {
  return new AppError('bad-input', `This series was not sent de-identified: one of its files ${why}.`, {
    action:
      'Export the series again from the scanner or viewer (uncompressed, if you can), and add it again.',
  });
}

interface Written {
  tag: string;
  bytes: Buffer[];
}

/**
 * Writes a de-identified copy of one parsed DICOM file (PS3.15 basic profile, see deid-profile.ts
 * for what is kept): attributes are removed, emptied, given dummy values or new UIDs per Table
 * E.1-1 at every depth of nested sequences, and whatever the table does not list is kept only
 * when it cannot carry identifying text, and only when its value fits its VR (deid-values.ts).
 * Pixel data keeps the image alone (deid-pixels.ts: no bytes past it, no bits outside Bits Stored;
 * compressed frames decoded and written as plain pixels). A file that cannot be cleaned is refused
 * (AppError). The output has a preamble and a fresh meta header; its transfer syntax is the
 * input's, except that deflated and compressed input is written as explicit VR little endian.
 * Instance Number is written as `place`, the file's place in the package (from 1).
 */
export function deidentifyDicom(parsed: ParsedDicom, uids: UidMapper, place = 1): Buffer {
  const ds = parsed.dataSet;
  const inputTs = transferSyntax(parsed.transferSyntaxUid);
  // Compressed pixels are written again as plain pixels (deid-pixels.ts), and the data set around
  // them is explicit VR little endian already (every compressed transfer syntax is).
  const outTsUid =
    parsed.transferSyntaxUid === DEFLATED_LE || !parsed.transferSyntaxUid || inputTs.compressed
      ? EXPLICIT_LE
      : parsed.transferSyntaxUid;
  let pixels: PixelFacts | undefined;
  try {
    pixels = ds.elements[PIXEL_DATA] ? pixelFacts(ds) : undefined;
  } catch (e) {
    if (e instanceof PixelsRefused) throw refused(e.message);
    throw e;
  }
  const ctx: Context = {
    enc: new Encoder(inputTs.littleEndian, inputTs.explicitVr),
    uids,
    inputTsUid: parsed.transferSyntaxUid,
    parsed,
    photometric: (ds.string('x00280004') ?? '').trim(),
    pixels,
    place,
  };
  // The values of these are not what the file stores: sent without their tables (which de-identification
  // does not keep, deid-profile.ts), they would be misread. Refused before packing too.
  if (ctx.photometric === 'PALETTE COLOR')
    throw refused('stores its pixels as indices into a colour table (PALETTE COLOR), not as densities');
  if ((ds.elements.x00283000?.items?.length ?? 0) > 0)
    throw refused('maps its stored values through a lookup table (Modality LUT Sequence)');
  const { enc } = ctx;
  const sopClassEl = ds.elements.x00080016;
  // As the data set's copy is written: a class UID that is not standard is replaced in both.
  const sopClassRaw = sopClassEl
    ? stringValue(ds, sopClassEl)
        .replace(/[\0 ]+$/, '')
        .trim()
    : '';
  const sopClass =
    sopClassRaw === '' || keepsUid(0x00080016, sopClassRaw) ? sopClassRaw : uids.uid(sopClassRaw);
  const sopInstanceEl = ds.elements.x00080018;
  const sopInstance = sopInstanceEl
    ? uids.uid(stringValue(ds, sopInstanceEl))
    : uids.uid(randomBytes(8).toString('hex'));

  let body: Written[];
  try {
    body = writeDataSet(ds, ctx, true);
  } catch (e) {
    if (e instanceof ValueTooLong)
      throw refused(
        `has a value in ${tagWords(e.tag)} that would be ${e.length} bytes once its UIDs are replaced, more than its kind of value can hold`,
      );
    throw e;
  }
  const text = (tag: string, vr: string, value: string): Buffer[] => {
    const b = padded(value, vr);
    return [enc.header(tag, vr, b.length), b];
  };
  body.push({ tag: 'x00120062', bytes: text('x00120062', 'CS', 'YES') });
  // Dates are removed or made dummies (deid-profile.ts), so the time line is no longer the original.
  body.push({ tag: 'x00280303', bytes: text('x00280303', 'CS', 'REMOVED') });
  body.push({ tag: 'x00120063', bytes: text('x00120063', 'LO', DEIDENTIFICATION_METHOD) });
  body.push({
    tag: 'x00120064',
    bytes: [
      enc.header('x00120064', 'SQ', 0xffffffff),
      enc.marker('xfffee000', 0xffffffff),
      ...text('x00080100', 'SH', METHOD_CODE.value),
      ...text('x00080102', 'SH', METHOD_CODE.scheme),
      ...text('x00080104', 'LO', METHOD_CODE.meaning),
      enc.marker('xfffee00d', 0),
      enc.marker('xfffee0dd', 0),
    ],
  });
  body.sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));

  return Buffer.concat([
    Buffer.alloc(128),
    Buffer.from('DICM', 'latin1'),
    metaHeader(sopClass, sopInstance, outTsUid),
    ...body.flatMap((e) => e.bytes),
  ]);
}

/**
 * Longest UID list read: 64 KiB holds over a thousand UIDs (an explicit VR UI value cannot be
 * longer). A crafted file with 9 MB of them took 5 s and 470 MB to replace, as one slice.
 */
const MAX_UID_LIST_BYTES = 0xffff;

/** The elements of one data set (the top level or an item) that survive, in their input order. */
function writeDataSet(ds: DataSet, ctx: Context, topLevel: boolean): Written[] {
  const out: Written[] = [];
  // At the top level only groups above the pixel data's may follow it (private ones, padding and
  // signatures, all removed by the profile): those are left out unread. An attribute that belongs
  // before the pixel data but lies after it is a file out of order, read differently by other
  // readers (a second copy of a tag hides the first); dropped, a Rescale Intercept there went
  // missing without a word, so the file is refused.
  const pixelsAt = topLevel ? ds.elements[PIXEL_DATA]?.dataOffset : undefined;
  for (const el of Object.values(ds.elements)) {
    if (pixelsAt !== undefined && el.dataOffset > pixelsAt) {
      // Zero bytes to the file's end read as (0000,0000): a writer's padding, as intake takes it.
      if (el.tag === 'x00000000' && ds.byteArray.subarray(el.dataOffset).every((b) => b === 0)) continue;
      if (el.tag < PIXEL_DATA) throw refused(`has ${tagWords(el.tag)} after its pixel data, out of order`);
      continue;
    }
    const written = writeElement(ds, el, ctx, topLevel);
    if (written) out.push({ tag: el.tag, bytes: written });
  }
  return out;
}

function writeElement(ds: DataSet, el: Element, ctx: Context, topLevel: boolean): Buffer[] | undefined {
  const { enc, uids } = ctx;
  const tag = el.tag;
  // The meta group is rebuilt; item and delimitation markers are regenerated.
  if (tag.startsWith('x0002') || tag.startsWith('xfffe') || WRITTEN_HERE.has(tag)) return undefined;
  const tagNumber = parseInt(tag.slice(1), 16);
  const dictVr = dictionaryVr(tagNumber);
  // The VR to write: the file's own (explicit VR) when the dictionary allows it, else the
  // dictionary's first choice.
  const vr = el.vr && dictVr?.split('|').includes(el.vr) ? el.vr : (dictVr?.split('|')[0] ?? el.vr);
  // Items in a value the dictionary gives another VR: in implicit VR the parser takes a value that
  // starts like an item for a sequence; written back as one under a US tag, pydicom read the file
  // to that point only, without a word (its rows, columns and pixels lost).
  if (el.items !== undefined && dictVr && !dictVr.split('|').includes('SQ')) {
    if (topLevel && NEEDED[tag])
      throw refused(`has ${article(NEEDED[tag])} ${NEEDED[tag]} that is not a valid value`);
    return undefined;
  }
  const isSequence = el.items !== undefined || vr === 'SQ' || dictVr === 'SQ';
  let decision = deidDecision(tagNumber);
  // A sequence stored as UN (or not recognised as one) cannot be filtered item by item.
  if (decision !== 'remove' && isSequence && (el.vr === 'UN' || (!el.items && el.length > 0)))
    decision = 'remove';
  switch (decision) {
    case 'remove':
      return undefined;
    case 'empty':
      return [enc.header(tag, isSequence ? 'SQ' : vr, 0)];
    case 'dummy': {
      const text = isSequence || !vr ? undefined : dummyText(vr);
      if (text === undefined) return [enc.header(tag, isSequence ? 'SQ' : vr, 0)];
      const value = padded(text, vr);
      return [enc.header(tag, vr, value.length), value];
    }
    case 'uid': {
      if (isSequence || el.hadUndefinedLength) return undefined;
      if (el.length > MAX_UID_LIST_BYTES)
        throw refused(
          `has a list of UIDs in ${tagWords(tag)} of ${el.length} bytes, more than any file of this kind holds`,
        );
      const newUids = stringValue(ds, el)
        .split('\\')
        .map((u) => u.replace(/[\0 ]+$/, '').trim())
        .map((u) => (u === '' || keepsUid(tagNumber, u) ? u : uids.uid(u)));
      const value = padded(newUids.join('\\'), 'UI');
      return [enc.header(tag, 'UI', value.length), value];
    }
    case 'keep':
      break;
  }
  if (isSequence) return writeSequence(el, ctx);
  if (tag === PIXEL_DATA) return topLevel ? writePixels(ds, el, ctx) : undefined; // only at the top
  // An Instance Number of any value fits its VR: a review kept 99887766 (a record number) in it.
  // Sent as the file's place along the series, which is what a receiver may order by; nested, it
  // refers to another file and is left out.
  if (tag === INSTANCE_NUMBER) {
    if (!topLevel) return undefined;
    const value = padded(String(ctx.place), 'IS');
    return [enc.header(tag, 'IS', value.length), value];
  }
  // Nothing else may have an undefined length and not be a sequence.
  if (el.hadUndefinedLength || !dictVr) return undefined;
  const value = checkedValue({
    tag: tagNumber,
    dictVr,
    storedVr: enc.explicitVr ? el.vr : undefined,
    bytes: ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length),
    littleEndian: enc.littleEndian,
    frames: ctx.pixels?.frames ?? 1,
  });
  if (!value) {
    if (topLevel && NEEDED[tag])
      throw refused(`has ${article(NEEDED[tag])} ${NEEDED[tag]} that is not a valid value`);
    return undefined;
  }
  return [enc.header(tag, vr, value.length), Buffer.from(value.buffer, value.byteOffset, value.byteLength)];
}

/** Pixel data holding the image alone (deid-pixels.ts), or a refusal in words. */
function writePixels(ds: DataSet, el: Element, ctx: Context): Buffer[] {
  const { enc } = ctx;
  const f = ctx.pixels;
  if (!f) throw refused('has pixel data without a pixel description');
  if (enc.explicitVr && el.vr !== 'OB' && el.vr !== 'OW')
    throw refused('has pixel data of an unexpected kind');
  try {
    if (el.hadUndefinedLength) {
      const value = nativeFromEncapsulated(ctx.parsed, f);
      return [enc.header(el.tag, f.bitsAllocated > 8 ? 'OW' : 'OB', value.length), value];
    }
    // Compressed frames are decoded and written as plain pixels; a codestream stored as one plain
    // value would go out as it is, its comments and markers with it.
    if (transferSyntax(ctx.parsed.transferSyntaxUid).compressed)
      throw refused(
        'says its pixels are compressed but stores them as one plain value, which DICOM does not allow',
      );
    const bytes = ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length);
    const value = cleanNativePixels(bytes, f, enc.littleEndian);
    return [enc.header(el.tag, el.vr, value.length), value];
  } catch (e) {
    if (e instanceof PixelsRefused) throw refused(e.message);
    throw e;
  }
}

/**
 * Writes a sequence with undefined lengths, each item filtered the same way as the top level.
 * A sequence whose items all come out empty is left out (it held only what was removed); items
 * are never dropped one by one, so per-frame items stay aligned with their frames.
 */
function writeSequence(el: Element, ctx: Context): Buffer[] | undefined {
  const { enc } = ctx;
  const items = (el.items ?? []).map((item) => (item.dataSet ? writeDataSet(item.dataSet, ctx, false) : []));
  if (items.length > 0 && items.every((i) => i.length === 0)) return undefined;
  const out: Buffer[] = [enc.header(el.tag, 'SQ', 0xffffffff)];
  for (const item of items) {
    out.push(enc.marker('xfffee000', 0xffffffff));
    for (const e of item) out.push(...e.bytes);
    out.push(enc.marker('xfffee00d', 0));
  }
  out.push(enc.marker('xfffee0dd', 0));
  return out;
}
