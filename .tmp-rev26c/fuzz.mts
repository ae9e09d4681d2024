// Randomized differential test: countElements vs instrumented dicom-parser work.
import { createRequire } from 'node:module';
import { writeFileSync, mkdirSync } from 'node:fs';
import { countElements } from '../src-main/scans/header-bounds.ts';
const require = createRequire(import.meta.url);
const dp = require('/tmp/rev26c/dp-inst.cjs');
const g = globalThis as any;

let seed = Number(process.env.SEED ?? 1);
function rnd(): number {
  // mulberry32
  seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const ri = (n: number) => Math.floor(rnd() * n);
const pick = <T,>(a: T[]): T => a[ri(a.length)]!;
const U = 0xffffffff;
const E = (k: string, d: number) => Number(process.env[k] ?? d);
const P_MUT=E('P_MUT',0.5), P_NONITEM=E('P_NONITEM',0.15), P_DLEN=E('P_DLEN',0.1), P_ADJ=E('P_ADJ',0.15), P_TRUNC=E('P_TRUNC',0.1), P_INVAL=E('P_INVAL',0.2);

interface Syn { le: boolean; ex: boolean }
function u16(v: number, s: Syn) { const b = Buffer.alloc(2); s.le ? b.writeUInt16LE(v & 0xffff) : b.writeUInt16BE(v & 0xffff); return b; }
function u32(v: number, s: Syn) { const b = Buffer.alloc(4); s.le ? b.writeUInt32LE(v >>> 0) : b.writeUInt32BE(v >>> 0); return b; }
const LONG = ['OB', 'OW', 'SQ', 'UN', 'UT', 'OF', 'OD', 'OL', 'UC', 'UR'];
function head(tag: number, vr: string | null, len: number, s: Syn): Buffer {
  const parts = [u16(tag >>> 16, s), u16(tag & 0xffff, s)];
  if (!s.ex || vr === null) parts.push(u32(len, s));
  else if (LONG.includes(vr)) parts.push(Buffer.from(vr, 'latin1'), Buffer.alloc(2), u32(len, s));
  else parts.push(Buffer.from(vr, 'latin1'), u16(len, s));
  return Buffer.concat(parts);
}
const ITEM = 0xfffee000, ITEM_END = 0xfffee00d, SEQ_END = 0xfffee0dd;
function itemHead(len: number, s: Syn) { return Buffer.concat([u16(0xfffe, s), u16(tag16(ITEM), s), u32(len, s)]); }
function tag16(t: number) { return t & 0xffff; }
function delim(t: number, s: Syn, len = 0) { return Buffer.concat([u16(0xfffe, s), u16(t & 0xffff, s), u32(len, s)]); }

function randTag(): number {
  const r = rnd();
  if (r < 0.1) return 0x7fe00010;
  if (r < 0.35) return ((0x0009 + 2 * ri(4)) << 16) | ri(0x10000); // private
  if (r < 0.4) return 0xfffee000 + pick([0, 0xd, 0xdd]);
  return ((0x0008 + 2 * ri(20)) << 16) | (1 + ri(0x3000));
}

function dataSet(s: Syn, depth: number, n: number): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) out.push(element(s, depth));
  return Buffer.concat(out);
}

function items(s: Syn, depth: number): Buffer {
  const out: Buffer[] = [];
  const k = ri(3) + (rnd() < 0.2 ? 0 : 1);
  for (let i = 0; i < k; i++) {
    const body = dataSet(s, depth + 1, ri(4));
    if (rnd() < 0.5) out.push(itemHead(U, s), body, delim(ITEM_END, s, rnd() < P_DLEN ? ri(20) : 0));
    else {
      const adj = rnd() < P_ADJ ? ri(9) - 4 : 0; // item lengths off by a few bytes
      out.push(itemHead(Math.max(0, body.length + adj), s), body);
    }
  }
  return Buffer.concat(out);
}

function fragments(s: Syn): Buffer {
  const out: Buffer[] = [itemHead(0, s)];
  const k = ri(4);
  for (let i = 0; i < k; i++) {
    const f = Buffer.alloc(ri(3) * 2);
    out.push(itemHead(f.length, s), f);
  }
  if (rnd() < P_NONITEM) out.push(head(randTag(), null, ri(3) * 2, s).subarray(0, 8)); // a non-item tag
  out.push(delim(SEQ_END, s, rnd() < P_DLEN ? ri(20) : 0));
  return Buffer.concat(out);
}

function element(s: Syn, depth: number): Buffer {
  const r = rnd();
  const tag = randTag();
  if (depth < 4 && r < 0.3) {
    const body = items(s, depth);
    const vr = s.ex ? pick(['SQ', 'SQ', 'UN']) : null;
    if (vr === 'UN') {
      // undefined-length UN: items implicit VR
      const si = { le: s.le, ex: false };
      return Buffer.concat([head(tag, 'UN', U, s), items(si, depth), delim(SEQ_END, s)]);
    }
    if (rnd() < 0.5) return Buffer.concat([head(tag, vr, U, s), body, delim(SEQ_END, s, rnd() < P_DLEN ? ri(20) : 0)]);
    const adj = rnd() < P_ADJ ? ri(13) - 6 : 0;
    return Buffer.concat([head(tag, vr, Math.max(0, body.length + adj), s), body]);
  }
  if (r < 0.4) {
    // encapsulated pixel data (possibly nested, as in an icon)
    return Buffer.concat([head(0x7fe00010, s.ex ? pick(E('P_PXUN',1) ? ['OB', 'OW', 'UN'] : ['OB','OW']) : null, U, s), fragments(s)]);
  }
  if (r < 0.45 && !s.ex) {
    // implicit: short value that starts with an item
    return Buffer.concat([head(tag, null, pick([0, 4, 8, 12]), s), items(s, depth)]);
  }
  const vr = pick(['CS', 'LO', 'UI', 'OB', 'UN', 'US', 'UT', 'DS']);
  const len = ri(4) * 2;
  const v = Buffer.alloc(len);
  if (rnd() < P_INVAL && len >= 4) { v.writeUInt16LE(0xfffe, 0); v.writeUInt16LE(pick([0xe000, 0xe0dd, 0xe00d]), 2); }
  return Buffer.concat([head(tag, vr, len, s), v]);
}

function mutate(b: Buffer): Buffer {
  const c = Buffer.from(b);
  const m = ri(4);
  for (let i = 0; i < m && c.length > 0; i++) {
    const at = ri(c.length);
    c[at] = pick([0, 0xff, 0xfe, 0xe0, 0xdd, 0x0d, ri(256)]);
  }
  if (rnd() < P_TRUNC) return c.subarray(0, ri(c.length));
  return c;
}

const syntaxes: [Syn, string][] = [
  [{ le: true, ex: true }, '1.2.840.10008.1.2.1'],
  [{ le: true, ex: false }, '1.2.840.10008.1.2'],
  [{ le: false, ex: true }, '1.2.840.10008.1.2.2'],
];
const N = Number(process.env.N ?? 20000);
mkdirSync('/tmp/rev26c/fuzz', { recursive: true });
let worst: any[] = [];
let under = 0, runs = 0, throwsN = 0;
for (let i = 0; i < N; i++) {
  const [s, ts] = pick(syntaxes);
  let bytes = Buffer.concat([head(0x00080060, s.ex ? 'CS' : null, 2, s), Buffer.from('CT'), dataSet(s, 0, 1 + ri(6))]);
  if (rnd() < P_MUT) bytes = mutate(bytes);
  const until = rnd() < 0.3;
  g.__dpWork = 0; g.__dpFrag = 0;
  let threw = false;
  try { dp.parseDicom(Buffer.from(bytes), { TransferSyntaxUID: ts, ...(until ? { untilTag: 'x7fe00010' } : {}) }); } catch { threw = true; throwsN++; }
  const work = g.__dpWork, frag = g.__dpFrag;
  let c;
  try { c = countElements(bytes, 0, { littleEndian: s.le, explicitVr: s.ex }, until); } catch (e) { console.log('countElements threw', e); continue; }
  runs++;
  const refused = !!c.stray || !!c.tooDeep;
  const deficit = (work + frag) - (c.elements + c.fragments) - (until ? 1 : 0);
  if (deficit > 0 && !refused) {
    under++;
    worst.push({ i, ts, until, threw, work, frag, counted: c.elements, pieces: c.fragments, deficit, hex: bytes.toString('hex') });
  }
}
worst.sort((a, b) => b.deficit - a.deficit);
writeFileSync(`/tmp/rev26c/fuzz/under-${process.env.SEED ?? 1}.json`, JSON.stringify(worst.slice(0, 200), null, 1));
console.log({ runs, throwsN, under, top: worst.slice(0, 8).map((w) => ({ ts: w.ts, until: w.until, threw: w.threw, work: w.work, frag: w.frag, counted: w.counted, pieces: w.pieces, deficit: w.deficit, len: w.hex.length / 2 })) });
