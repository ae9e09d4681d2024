import { createHash, randomBytes } from 'node:crypto';
import type { DataSet, Element } from 'dicom-parser';
import { PIXEL_DATA, type ParsedDicom } from './dicom-file.js';
import { deidAction } from './deid-profile.js';
import { DEFLATED_LE, EXPLICIT_LE, transferSyntax } from './transfer-syntax.js';

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

const LONG_LENGTH_VRS = new Set([
  'OB',
  'OD',
  'OF',
  'OL',
  'OV',
  'OW',
  'SQ',
  'SV',
  'UC',
  'UN',
  'UR',
  'UT',
  'UV',
]);

/** VRs of the attributes this module writes or rewrites, for explicit-VR output. */
const KNOWN_VRS: Record<string, string> = {
  x00020000: 'UL',
  x00020001: 'OB',
  x00020002: 'UI',
  x00020003: 'UI',
  x00020010: 'UI',
  x00020012: 'UI',
  x00020013: 'SH',
  x00120062: 'CS',
  x00120063: 'LO',
};

/** Encodes elements in one transfer syntax's byte order and VR style. */
class Encoder {
  constructor(
    readonly littleEndian: boolean,
    readonly explicitVr: boolean,
  ) {}

  private tag(tag: string): Buffer {
    const b = Buffer.alloc(4);
    const group = parseInt(tag.slice(1, 5), 16);
    const element = parseInt(tag.slice(5, 9), 16);
    if (this.littleEndian) {
      b.writeUInt16LE(group, 0);
      b.writeUInt16LE(element, 2);
    } else {
      b.writeUInt16BE(group, 0);
      b.writeUInt16BE(element, 2);
    }
    return b;
  }

  private u32(v: number): Buffer {
    const b = Buffer.alloc(4);
    if (this.littleEndian) b.writeUInt32LE(v, 0);
    else b.writeUInt32BE(v, 0);
    return b;
  }

  header(tag: string, vr: string | undefined, length: number): Buffer {
    if (!this.explicitVr || !vr) return Buffer.concat([this.tag(tag), this.u32(length)]);
    if (LONG_LENGTH_VRS.has(vr))
      return Buffer.concat([this.tag(tag), Buffer.from(vr, 'latin1'), Buffer.alloc(2), this.u32(length)]);
    const len = Buffer.alloc(2);
    if (this.littleEndian) len.writeUInt16LE(length, 0);
    else len.writeUInt16BE(length, 0);
    return Buffer.concat([this.tag(tag), Buffer.from(vr, 'latin1'), len]);
  }

  /** Item and delimitation tags carry no VR in any transfer syntax. */
  marker(tag: string, length: number): Buffer {
    return Buffer.concat([this.tag(tag), this.u32(length)]);
  }
}

function padded(text: string, vr: string | undefined): Buffer {
  const b = Buffer.from(text, 'latin1');
  if (b.length % 2 === 0) return b;
  return Buffer.concat([b, Buffer.from(vr === 'UI' ? '\0' : ' ', 'latin1')]);
}

function stringValue(ds: DataSet, el: Element): string {
  return Buffer.from(ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length))
    .toString('latin1')
    .replace(/[\0 ]+$/, '');
}

/**
 * Writes a de-identified copy of one parsed DICOM file (PS3.15 basic profile, see deid-profile.ts):
 * identifying attributes are removed, emptied or given new UIDs, at every depth of nested
 * sequences; geometry, pixel description and pixel data are copied byte for byte. The output has
 * a preamble and a fresh meta header; its transfer syntax is the input's (a deflated input is
 * written inflated, as explicit VR little endian).
 */
export function deidentifyDicom(parsed: ParsedDicom, uids: UidMapper): Buffer {
  const ds = parsed.dataSet;
  const inputTs = transferSyntax(parsed.transferSyntaxUid);
  const outTsUid =
    parsed.transferSyntaxUid === DEFLATED_LE || !parsed.transferSyntaxUid
      ? EXPLICIT_LE
      : parsed.transferSyntaxUid;
  const enc = new Encoder(inputTs.littleEndian, inputTs.explicitVr);
  const sopClass = stringValue(ds, ds.elements.x00080016 ?? ({ dataOffset: 0, length: 0 } as Element));
  const sopInstanceEl = ds.elements.x00080018;
  const sopInstance = sopInstanceEl
    ? uids.uid(stringValue(ds, sopInstanceEl))
    : uids.uid(randomBytes(8).toString('hex'));

  const body: { tag: string; bytes: Buffer[] }[] = [];
  writeDataSet(ds, enc, uids, (tag, bytes) => body.push({ tag, bytes }), true);
  const mark = (tag: string, text: string): void => {
    const vr = KNOWN_VRS[tag]!;
    const value = padded(text, vr);
    body.push({ tag, bytes: [enc.header(tag, vr, value.length), value] });
  };
  mark('x00120062', 'YES');
  mark('x00120063', 'DICOM PS3.15 Basic Application Level Confidentiality Profile (scan2mesh)');
  body.sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));

  return Buffer.concat([
    Buffer.alloc(128),
    Buffer.from('DICM', 'latin1'),
    metaHeader(sopClass, sopInstance, outTsUid),
    ...body.flatMap((e) => e.bytes),
  ]);
}

/** A fresh File Meta Information group (always explicit VR little endian, PS3.10 7.1). */
function metaHeader(sopClass: string, sopInstance: string, tsUid: string): Buffer {
  const enc = new Encoder(true, true);
  const parts: Buffer[] = [];
  const add = (tag: string, value: Buffer): void => {
    parts.push(enc.header(tag, KNOWN_VRS[tag], value.length), value);
  };
  add('x00020001', Buffer.from([0, 1]));
  add('x00020002', padded(sopClass, 'UI'));
  add('x00020003', padded(sopInstance, 'UI'));
  add('x00020010', padded(tsUid, 'UI'));
  add('x00020012', padded('2.25.190853761094307178358155934474542880612', 'UI'));
  add('x00020013', padded('SCAN2MESH', 'SH'));
  const rest = Buffer.concat(parts);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(rest.length, 0);
  return Buffer.concat([enc.header('x00020000', 'UL', 4), length, rest]);
}

function writeDataSet(
  ds: DataSet,
  enc: Encoder,
  uids: UidMapper,
  emit: (tag: string, bytes: Buffer[]) => void,
  topLevel: boolean,
): void {
  for (const el of Object.values(ds.elements)) {
    const tag = el.tag;
    // The meta group is rebuilt; item and delimitation markers are regenerated.
    if (tag.startsWith('x0002') || tag.startsWith('xfffe')) continue;
    const action = deidAction(tag);
    if (action === 'X') continue;
    if (action === 'Z') {
      emit(tag, [enc.header(tag, el.vr === 'SQ' ? 'SQ' : el.vr, 0)]);
      continue;
    }
    if (action === 'U') {
      const value = padded(uids.uid(stringValue(ds, el)), 'UI');
      emit(tag, [enc.header(tag, el.vr ?? 'UI', value.length), value]);
      continue;
    }
    if (el.items && el.vr !== 'UN') {
      emit(tag, writeSequence(el, enc, uids));
      continue;
    }
    if (el.hadUndefinedLength) {
      // Encapsulated pixel data (or an undefined-length value): its fragments and closing
      // delimiter are copied as they are.
      const vr = tag === PIXEL_DATA && enc.explicitVr ? (el.vr ?? 'OB') : el.vr;
      emit(tag, [
        enc.header(tag, vr, 0xffffffff),
        Buffer.from(ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length)),
      ]);
      continue;
    }
    if (!topLevel && tag === PIXEL_DATA) continue; // pixel data only belongs at the top
    emit(tag, [
      enc.header(tag, el.vr, el.length),
      Buffer.from(ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length)),
    ]);
  }
}

/** Writes a sequence with undefined lengths, each item filtered the same way as the top level. */
function writeSequence(el: Element, enc: Encoder, uids: UidMapper): Buffer[] {
  const out: Buffer[] = [enc.header(el.tag, 'SQ', 0xffffffff)];
  for (const item of el.items ?? []) {
    out.push(enc.marker('xfffee000', 0xffffffff));
    if (item.dataSet) writeDataSet(item.dataSet, enc, uids, (_t, bytes) => out.push(...bytes), false);
    out.push(enc.marker('xfffee00d', 0));
  }
  out.push(enc.marker('xfffee0dd', 0));
  return out;
}
