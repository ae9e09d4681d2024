// Mutated DICOM headers for the fuzz test (header-fuzz.test.ts) and bench (bench/fuzz.bench.ts), never shipped:
// real fixture files with flipped bytes, zeroed runs, cut ends, absurd lengths and counts, wrong
// VRs. Test support only; nothing in the app imports it.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import dicomParser from 'dicom-parser';
import { classifyBytes, type Classified } from './classify-file.js';
import { MAX_FRAMES } from './header-fields.js';

/** A small, fast, seeded PRNG (mulberry32): the same seed gives the same mutations everywhere. */
export function prng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** Where one top-level element of a source file lies, for mutations that aim at its fields. */
interface ElementAt {
  tag: string;
  /** Offset of the VR in the file; undefined for implicit VR. */
  vrAt?: number;
  lengthAt: number;
  lengthBytes: 2 | 4;
  dataOffset: number;
  length: number;
}

export interface FuzzSource {
  name: string;
  bytes: Buffer;
  elements: ElementAt[];
  littleEndian: boolean;
  /** End of the header: where the pixel data element starts, or the file's end. */
  headerEnd: number;
}

/** Every DICOM file among the fixtures that dicom-parser reads as Part 10 (a few phantom slices suffice). */
export function fuzzSources(fixtures: string): FuzzSource[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (!/\.(txt|gz|md)$/i.test(name)) files.push(p);
    }
  };
  walk(fixtures);
  const phantom = files.filter((f) => f.includes('ct-head-phantom-1mm')).slice(0, 3);
  const cranium = files.filter((f) => f.includes('ct-human-cranium-teeth')).slice(0, 2);
  const others = files.filter((f) => !/ct-head-phantom-1mm|ct-human-cranium-teeth/.test(f));
  return [...phantom, ...cranium, ...others].flatMap((f) => {
    const source = describe(f.slice(fixtures.length + 1), readFileSync(f));
    return source ? [source] : [];
  });
}

function describe(name: string, bytes: Buffer): FuzzSource | null {
  let ds;
  try {
    ds = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' });
  } catch {
    return null; // the raw fixtures without preamble are mutated only as whole-byte damage elsewhere
  }
  const ts = (ds.string('x00020010') ?? '').replace(/\0/g, '').trim();
  if (ts === '1.2.840.10008.1.2.1.99') return null; // offsets point into the inflated data, not the file
  const explicitVr = (tag: string): boolean => tag < 'x00030000' || ts !== '1.2.840.10008.1.2';
  const elements: ElementAt[] = [];
  for (const el of Object.values(ds.elements)) {
    if (el.hadUndefinedLength) continue;
    if (explicitVr(el.tag)) {
      const long = ['OB', 'OW', 'OF', 'SQ', 'UT', 'UN', 'OD', 'OL', 'UC', 'UR', 'OV', 'SV', 'UV'].includes(
        el.vr ?? '',
      );
      elements.push({
        tag: el.tag,
        vrAt: el.dataOffset - (long ? 8 : 4),
        lengthAt: el.dataOffset - (long ? 4 : 2),
        lengthBytes: long ? 4 : 2,
        dataOffset: el.dataOffset,
        length: el.length,
      });
    } else {
      elements.push({
        tag: el.tag,
        lengthAt: el.dataOffset - 4,
        lengthBytes: 4,
        dataOffset: el.dataOffset,
        length: el.length,
      });
    }
  }
  const px = ds.elements.x7fe00010;
  return {
    name,
    bytes,
    elements,
    littleEndian: ts !== '1.2.840.10008.1.2.2',
    headerEnd: px ? px.dataOffset : bytes.length,
  };
}

export const MUTATIONS = [
  'flip-bytes',
  'zero-run',
  'truncate',
  'huge-length',
  'frames-3000000',
  'frames-99999999999',
  'wrong-vr',
  'huge-rows-columns',
] as const;
export type Mutation = (typeof MUTATIONS)[number];

/** One mutated copy of `src`; `kind` chooses the damage, `rand` its place and size. */
export function mutate(src: FuzzSource, kind: Mutation, rand: (n: number) => number): Buffer {
  const b = Buffer.from(src.bytes);
  const inHeader = (): number => rand(Math.max(1, src.headerEnd));
  const pick = (): ElementAt | undefined => src.elements[rand(src.elements.length)];
  switch (kind) {
    case 'flip-bytes':
      for (let k = 1 + rand(8); k > 0; k--) b[inHeader()] = rand(256);
      return b;
    case 'zero-run': {
      const at = inHeader();
      b.fill(0, at, Math.min(b.length, at + 1 + rand(rand(2) ? 4 : 64)));
      return b;
    }
    case 'truncate':
      return b.subarray(0, rand(Math.min(b.length, src.headerEnd + 4096)));
    case 'huge-length': {
      const el = pick();
      if (!el) return b;
      const big = [0xffffffff, 0xfffffff0, 0x7fffffff, 0x10000000, el.length + 1 + rand(1000)][rand(5)]!;
      if (el.lengthBytes === 2) writeUint(b, el.lengthAt, 2, rand(2) ? 0xffff : 0xfffe, src.littleEndian);
      else writeUint(b, el.lengthAt, 4, big, src.littleEndian);
      return b;
    }
    case 'frames-3000000':
      return withNumberOfFrames(src, '3000000');
    case 'frames-99999999999':
      return withNumberOfFrames(src, '99999999999');
    case 'wrong-vr': {
      const explicit = src.elements.filter((e) => e.vrAt !== undefined);
      const el = explicit[rand(Math.max(1, explicit.length))];
      if (!el || el.vrAt === undefined) return b;
      const vr = ['SQ', 'UN', 'OB', 'OW', 'US', 'UL', 'FD', 'AT', 'zz', '\0\0'][rand(10)]!;
      b.write(vr, el.vrAt, 'latin1');
      return b;
    }
    case 'huge-rows-columns': {
      for (const tag of ['x00280010', 'x00280011']) {
        const el = src.elements.find((e) => e.tag === tag && e.length === 2);
        if (el) writeUint(b, el.dataOffset, 2, 0xffff - rand(3), src.littleEndian);
      }
      return b;
    }
  }
}

function writeUint(b: Buffer, at: number, width: 2 | 4, v: number, le: boolean): void {
  if (at < 0 || at + width > b.length) return;
  if (width === 2) {
    if (le) b.writeUInt16LE(v & 0xffff, at);
    else b.writeUInt16BE(v & 0xffff, at);
  } else if (le) b.writeUInt32LE(v >>> 0, at);
  else b.writeUInt32BE(v >>> 0, at);
}

/**
 * The source with Number of Frames (0028,0008) set to `value`: its old element replaced, or a new
 * one put in tag order, as explicit or implicit VR like its neighbours.
 */
function withNumberOfFrames(src: FuzzSource, value: string): Buffer {
  const v = Buffer.from(value.length % 2 ? `${value} ` : value, 'latin1');
  const old = src.elements.find((e) => e.tag === 'x00280008');
  const next = src.elements
    .filter((e) => e.tag > 'x00280008' && e.tag >= 'x00080000')
    .sort((a, b) => a.dataOffset - b.dataOffset)[0];
  const explicit = (old ?? next)?.vrAt !== undefined;
  const el = Buffer.alloc(8 + v.length);
  const le = src.littleEndian;
  writeUint(el, 0, 2, 0x0028, le);
  writeUint(el, 2, 2, 0x0008, le);
  if (explicit) {
    el.write('IS', 4, 'latin1');
    writeUint(el, 6, 2, v.length, le);
  } else writeUint(el, 4, 4, v.length, le);
  v.copy(el, 8);
  if (old) {
    const start = old.vrAt !== undefined ? old.vrAt - 4 : old.lengthAt - 4;
    return Buffer.concat([src.bytes.subarray(0, start), el, src.bytes.subarray(old.dataOffset + old.length)]);
  }
  if (!next) return Buffer.from(src.bytes);
  const at = next.vrAt !== undefined ? next.vrAt - 4 : next.lengthAt - 4;
  return Buffer.concat([src.bytes.subarray(0, at), el, src.bytes.subarray(at)]);
}

/** Words a parser or the runtime would use, which must never reach a user's message. */
const TECHNICAL =
  /dicomParser|undefined|NaN|Infinity|exception|Error\b|buffer|maxPosition|position \d|x[0-9a-f]{8}|Invalid array|\[object/i;
/** An errno such as ENOENT (case matters: "Enhanced" is a word). */
const ERRNO = /\bE[A-Z]{3,}\b/;

/** Why a classification result is not acceptable, or null when it is. */
export function fuzzVerdict(r: Classified): string | null {
  if (r.kind === 'image') {
    const h = r.header;
    if (!(h.numberOfFrames >= 1 && h.numberOfFrames <= MAX_FRAMES)) return `frame count ${h.numberOfFrames}`;
    if (h.frames.length !== h.numberOfFrames) return 'frame list does not match the frame count';
    return null;
  }
  if (r.kind === 'archive') return null;
  const words = r.kind === 'skip' ? r.reason : r.problem.message;
  if (!words || words.length < 8) return 'no reason given';
  if (TECHNICAL.test(words) || ERRNO.test(words)) return `technical text in "${words}"`;
  return null;
}

export interface FuzzTally {
  tried: number;
  crashes: number;
  rejected: number;
  byOutcome: Record<string, number>;
  byMutation: Record<string, number>;
  firstFailures: string[];
}

/**
 * Classifies `count` mutated headers and tallies what came of them. A crash is a throw out of the
 * classifier; a rejection is a result that breaks the rules of fuzzVerdict. `each` sees every file
 * that came back, with how long its classification took (the bench counts slow ones as hangs).
 */
export function runFuzz(
  sources: FuzzSource[],
  count: number,
  seed: number,
  each?: (name: string, ms: number) => void,
): FuzzTally {
  const rand = prng(seed);
  const t: FuzzTally = {
    tried: 0,
    crashes: 0,
    rejected: 0,
    byOutcome: {},
    byMutation: {},
    firstFailures: [],
  };
  for (let i = 0; i < count; i++) {
    const src = sources[rand(sources.length)]!;
    const kind = MUTATIONS[rand(MUTATIONS.length)]!;
    const bytes = mutate(src, kind, rand);
    const name = `${src.name}#${i}:${kind}`;
    const display = `file${i}`; // the reason is checked for technical words, not the fixture's name
    t.tried++;
    t.byMutation[kind] = (t.byMutation[kind] ?? 0) + 1;
    let r: Classified;
    const started = performance.now();
    try {
      r = classifyBytes(bytes, { path: display, display });
    } catch (e) {
      t.crashes++;
      if (t.firstFailures.length < 10) t.firstFailures.push(`${name}: threw ${String(e)}`);
      continue;
    }
    each?.(name, performance.now() - started);
    const outcome =
      r.kind === 'problem'
        ? `problem:${r.problem.code}`
        : r.kind === 'archive'
          ? `archive:${r.archive}`
          : r.kind;
    t.byOutcome[outcome] = (t.byOutcome[outcome] ?? 0) + 1;
    const verdict = fuzzVerdict(r);
    if (verdict) {
      t.rejected++;
      if (t.firstFailures.length < 10) t.firstFailures.push(`${name}: ${verdict}`);
    }
  }
  return t;
}
