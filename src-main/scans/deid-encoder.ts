// Writing DICOM elements for de-identified files (deidentify.ts): the encoder of one transfer
// syntax's byte order and VR style, and the fresh meta header every written file gets.

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

/** A value longer than its VR's 16-bit length can say in explicit VR. */
export class ValueTooLong extends Error {
  constructor(
    readonly tag: string,
    readonly vr: string,
    readonly length: number,
  ) {
    super(`${tag} (${vr}) of ${length} bytes`);
  }
}

/** VRs of the meta header's attributes (always explicit VR). */
const KNOWN_VRS: Record<string, string> = {
  x00020000: 'UL',
  x00020001: 'OB',
  x00020002: 'UI',
  x00020003: 'UI',
  x00020010: 'UI',
  x00020012: 'UI',
  x00020013: 'SH',
};

/** Encodes elements in one transfer syntax's byte order and VR style. */
export class Encoder {
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
    // A list of UIDs grows when each is replaced by a longer one: past 16 bits it has no length here.
    if (length > 0xffff) throw new ValueTooLong(tag, vr, length);
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

export function padded(text: string, vr: string | undefined): Buffer {
  const b = Buffer.from(text, 'latin1');
  if (b.length % 2 === 0) return b;
  return Buffer.concat([b, Buffer.from(vr === 'UI' ? '\0' : ' ', 'latin1')]);
}

/** A fresh File Meta Information group (always explicit VR little endian, PS3.10 7.1). */
export function metaHeader(sopClass: string, sopInstance: string, tsUid: string): Buffer {
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
