// Builds phantom slices with an Icon Image Sequence that hides N empty elements from countElements.
import { readFileSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import dicomParser from 'dicom-parser';
import { countElements } from '../src-main/scans/header-bounds.ts';
const N = Number(process.env.N ?? 100000);
const dir = '/work/shared/fixtures/dicom/ct-head-phantom-1mm';
const first = join(dir, readdirSync(dir).sort()[0]!);
const file = readFileSync(first);
const ds = dicomParser.parseDicom(file, { untilTag: 'x7fe00010' });
const start = (ds as any).elements.x00080005 ? 0 : 0;
// insert before the first top-level element with tag > 0x00880200
const next = Object.values(ds.elements).filter((e: any) => e.tag > 'x00880200' && e.tag <= 'x7fe00010').sort((a: any, b: any) => (a.tag < b.tag ? -1 : 1))[0]! as any;
const LONG = new Set(['OB', 'OW', 'SQ', 'UN', 'UT', 'OF', 'OD', 'OL', 'UC', 'UR']);
const at = next.dataOffset - (LONG.has(next.vr) ? 12 : 8);
const tagb = (g: number, e: number) => { const b = Buffer.alloc(4); b.writeUInt16LE(g, 0); b.writeUInt16LE(e, 2); return b; };
const u32 = (v: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(v >>> 0); return b; };
const u16 = (v: number) => { const b = Buffer.alloc(2); b.writeUInt16LE(v); return b; };
const long = (g: number, e: number, vr: string, len: number) => Buffer.concat([tagb(g, e), Buffer.from(vr), Buffer.alloc(2), u32(len)]);
const short = (g: number, e: number, vr: string, len: number) => Buffer.concat([tagb(g, e), Buffer.from(vr), u16(len)]);
const item = (len: number) => Buffer.concat([tagb(0xfffe, 0xe000), u32(len)]);
const itemEnd = Buffer.concat([tagb(0xfffe, 0xe00d), u32(0)]);
const seqEnd = Buffer.concat([tagb(0xfffe, 0xe0dd), u32(0)]);
function many(n: number): Buffer {
  const b = Buffer.alloc(8 * n);
  for (let k = 0; k < n; k++) {
    const g = 0x0011 + 2 * Math.floor(k / 0xff00), e = 0x0100 + (k % 0xff00);
    b.writeUInt16LE(g, 8 * k); b.writeUInt16LE(e, 8 * k + 2); b.write('LO', 8 * k + 4, 'latin1'); b.writeUInt16LE(0, 8 * k + 6);
  }
  return b;
}
const icon = (inner: Buffer) => Buffer.concat([long(0x0088, 0x0200, 'SQ', 0xffffffff), item(0xffffffff), inner, itemEnd, seqEnd]);
const M = many(N);
const variants: Record<string, Buffer> = {
  // A: pixel data of VR UN and undefined length in the icon: dicom-parser reads fragments, the count an implicit sequence
  A_un_pixels: icon(Buffer.concat([long(0x7fe0, 0x0010, 'UN', 0xffffffff), item(8), tagb(0x0009, 0x0010), u32(0x7ffffff0), seqEnd, M])),
  // C: a non-item tag among the icon's fragments: dicom-parser ends the pixel data there and reads on; the count stops
  C_nonitem_fragment: icon(Buffer.concat([long(0x7fe0, 0x0010, 'OB', 0xffffffff), item(0), tagb(0x0008, 0x0000), u32(0), M])),
  // D: a sequence delimiter with a non-zero length after the icon's fragments: dicom-parser skips it, the count does not
  D_seqdelim_len: icon(Buffer.concat([long(0x7fe0, 0x0010, 'OB', 0xffffffff), item(0), tagb(0xfffe, 0xe0dd), u32(20), long(0x0009, 0x1000, 'OB', 0x7ffffff0), Buffer.alloc(8), M])),
};
// B: an item delimiter whose length bytes read (explicit VR) as VR "\0\0" and length 20: dicom-parser skips 20 bytes, the count 0
const B = Buffer.concat([long(0x0088, 0x0200, 'SQ', 0xffffffff), item(0xffffffff), short(0x0028, 0x0010, 'US', 2), u16(64),
  tagb(0xfffe, 0xe00d), Buffer.from([0, 0, 20, 0]), seqEnd, long(0x0009, 0x1000, 'OB', 0x7ffffff0), seqEnd, M]);
variants.B_itemdelim_len = B;
const out = process.env.OUT ?? '/tmp/rev26c/hb';
for (const [name, ins] of Object.entries(variants)) {
  const bytes = Buffer.concat([file.subarray(0, at), ins, file.subarray(at)]);
  mkdirSync(join(out, name), { recursive: true });
  writeFileSync(join(out, name, 'slice.dcm'), bytes);
  const meta = dicomParser.readPart10Header(bytes) as any;
  const t0 = Date.now();
  const c = countElements(bytes, meta.position, { littleEndian: true, explicitVr: true }, true);
  const c2 = countElements(bytes, meta.position, { littleEndian: true, explicitVr: true }, false);
  let n = 0, err = '';
  const t1 = Date.now();
  try { const d = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' }); const cnt = (x: any): number => { let k = 0; for (const el of Object.values(x.elements) as any[]) { k++; for (const it of el.items ?? []) k += 1 + (it.dataSet ? cnt(it.dataSet) : 0); } return k; }; n = cnt(d); } catch (e) { err = String((e as any).exception ?? e); }
  console.log(name, 'bytes', bytes.length, 'countElements(header)', c.elements, 'countElements(whole)', c2.elements, 'dicom-parser header objects', n, err, 'parse ms', Date.now() - t1);
}
