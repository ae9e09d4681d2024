// Helpers for the scans tests: where the real fixtures are, the pydicom reference, and derived inputs.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import dicomParser from 'dicom-parser';
import { afterAll } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = resolve(here, '..', '..', '..', 'shared', 'fixtures', 'dicom');
export const PHANTOM_DIR = join(FIXTURES, 'ct-head-phantom-1mm');

export function phantomFiles(): string[] {
  return readdirSync(PHANTOM_DIR)
    .sort()
    .map((f) => join(PHANTOM_DIR, f));
}

/** Phantom files in slice order (their names are not): by the z of Image Position (Patient). */
export function phantomBySlice(files: string[] = phantomFiles()): string[] {
  const z = (f: string): number => {
    const ds = dicomParser.parseDicom(readFileSync(f).subarray(0, 16384), { untilTag: 'x7fe00010' });
    return ds.floatString('x00200032', 2) ?? NaN;
  };
  const withZ = files.map((f) => ({ f, z: z(f) }));
  return withZ.sort((a, b) => a.z - b.z).map((x) => x.f);
}

const PYTHON = '/usr/bin/python3';

/** Why pydicom cannot serve as the reference here, or null when it can. */
export function pydicomMissing(): string | null {
  const r = spawnSync(PYTHON, ['-c', 'import pydicom, numpy'], { encoding: 'utf8' });
  if (r.error) return `${PYTHON} cannot be run (${r.error.message})`;
  return r.status === 0 ? null : `${PYTHON} lacks pydicom or numpy: ${r.stderr.trim().split('\n').pop()}`;
}

/** Runs a Python script with Debian's python3 and parses the JSON it prints last. */
export function python<T>(script: string, args: string[] = [], input?: string): T {
  const r = spawnSync(PYTHON, ['-c', script, ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...(input !== undefined ? { input } : {}),
  });
  if (r.status !== 0) throw new Error(`python failed: ${r.stderr}`);
  const lines = r.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as T;
}

/**
 * Overwrites the value of a top-level element in a Part 10 file with a value of the same length
 * (tests derive "bad" inputs this way: a shifted slice, a different size).
 */
export function patchElement(file: Buffer, tag: string, value: Buffer): void {
  const ds = dicomParser.parseDicom(file, { untilTag: 'x7fe00010' });
  const el = ds.elements[tag];
  if (!el) throw new Error(`no ${tag} in file`);
  if (el.length !== value.length)
    throw new Error(`${tag} is ${el.length} bytes, new value is ${value.length}`);
  value.copy(file, el.dataOffset);
}

/** A string value padded to the length of the element it replaces. */
export function sameLength(file: Buffer, tag: string, text: string): Buffer {
  const ds = dicomParser.parseDicom(file, { untilTag: 'x7fe00010' });
  const el = ds.elements[tag];
  if (!el) throw new Error(`no ${tag} in file`);
  if (text.length > el.length) throw new Error(`"${text}" does not fit in ${el.length} bytes`);
  return Buffer.from(text.padEnd(el.length, ' '), 'latin1');
}

/**
 * A copy of a file whose meta header names another transfer syntax of the same length: a file
 * that claims a compression scan2mesh cannot decode (JPEG Extended, 1.2.840.10008.1.2.4.51).
 */
export function copyClaimingSyntax(src: string, dst: string, uid = '1.2.840.10008.1.2.4.51'): string {
  const bytes = readFileSync(src);
  const ds = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' });
  const el = ds.elements.x00020010!;
  if (uid.length > el.length) throw new Error('transfer syntax UID too long for this file');
  patchElement(bytes, 'x00020010', Buffer.from(uid.padEnd(el.length, '\0'), 'latin1'));
  writeFileSync(dst, bytes);
  return dst;
}

/**
 * A private temporary folder for one test file, removed after its tests, and a maker of fresh,
 * numbered sub-folders in it. `root` is there for files the tests share.
 */
export function tempFolders(prefix: string): { root: string; fresh: (name: string) => string } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  const fresh = (name: string): string => {
    const dir = join(root, `${n++}-${name}`);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  return { root, fresh };
}

/**
 * A file of a fixture in a folder a test drops: a hard link (no copy of megabytes), or a copy where
 * the two folders are on different file systems. Not a symbolic link: intake skips links that lead
 * out of the dropped folder.
 */
export function linkOrCopy(src: string, dst: string): void {
  try {
    linkSync(src, dst);
  } catch {
    copyFileSync(src, dst);
  }
}

/** VRs whose explicit-VR element header is 12 bytes (reserved bytes and a 4-byte length). */
const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV']);

/**
 * A copy of an explicit-VR little-endian Part 10 file with top-level elements added in tag order
 * (tests derive files that state what the real ones do not: a Rescale Type, a Pixel Padding Value).
 * An element the file has already is an error.
 */
export function withElements(file: Buffer, add: { tag: string; vr: string; value: Buffer }[]): Buffer {
  const ds = dicomParser.parseDicom(file);
  if (ds.string('x00020010') !== '1.2.840.10008.1.2.1') throw new Error('not explicit VR little endian');
  const top = Object.values(ds.elements)
    .filter((e) => e.tag >= 'x00080000')
    .sort((a, b) => (a.tag < b.tag ? -1 : 1));
  const parts: Buffer[] = [];
  let from = 0;
  for (const el of [...add].sort((a, b) => (a.tag < b.tag ? -1 : 1))) {
    if (ds.elements[el.tag]) throw new Error(`the file has ${el.tag} already`);
    if (el.value.length % 2 !== 0) throw new Error(`cannot add ${el.vr} ${el.tag} of odd length`);
    const next = top.find((e) => e.tag > el.tag);
    if (!next) throw new Error(`nothing after ${el.tag}`);
    const at = next.dataOffset - (LONG_VRS.has(next.vr ?? '') ? 12 : 8);
    const long = LONG_VRS.has(el.vr);
    const head = Buffer.alloc(long ? 12 : 8);
    head.writeUInt16LE(parseInt(el.tag.slice(1, 5), 16), 0);
    head.writeUInt16LE(parseInt(el.tag.slice(5, 9), 16), 2);
    head.write(el.vr, 4, 'latin1');
    if (long) head.writeUInt32LE(el.value.length, 8);
    else head.writeUInt16LE(el.value.length, 6);
    parts.push(file.subarray(from, at), head, el.value);
    from = at;
  }
  parts.push(file.subarray(from));
  return Buffer.concat(parts);
}

/** A signed or unsigned short as an element value (US, SS). */
export function short16(v: number): Buffer {
  const b = Buffer.alloc(2);
  if (v < 0) b.writeInt16LE(v);
  else b.writeUInt16LE(v);
  return b;
}

/** A text value padded to an even length (CS, LO). */
export function evenText(s: string): Buffer {
  return Buffer.from(s.length % 2 === 0 ? s : `${s} `, 'latin1');
}

/**
 * A copy of a file with 16-bit uncompressed little-endian pixels whose stored values are replaced by
 * `f(stored, column, row)` (signed or unsigned as Pixel Representation says).
 */
export function withPixels(file: Buffer, f: (stored: number, column: number, row: number) => number): Buffer {
  const ds = dicomParser.parseDicom(file);
  const px = ds.elements.x7fe00010;
  const columns = ds.uint16('x00280011') ?? 0;
  if (!px || ds.uint16('x00280100') !== 16 || px.encapsulatedPixelData)
    throw new Error('not 16-bit uncompressed pixels');
  const signed = ds.uint16('x00280103') === 1;
  const out = Buffer.from(file);
  for (let p = 0; p < px.length / 2; p++) {
    const at = px.dataOffset + 2 * p;
    const v = f(signed ? out.readInt16LE(at) : out.readUInt16LE(at), p % columns, Math.floor(p / columns));
    if (signed) out.writeInt16LE(v, at);
    else out.writeUInt16LE(v, at);
  }
  return out;
}

/** An explicit-VR element with a short VR (an 8-byte header: tag, VR, 2-byte length), little endian unless asked. */
export function shortElement(
  group: number,
  element: number,
  vr: string,
  value: Buffer,
  bigEndian = false,
): Buffer {
  const b = Buffer.alloc(8);
  if (bigEndian) {
    b.writeUInt16BE(group, 0);
    b.writeUInt16BE(element, 2);
    b.writeUInt16BE(value.length, 6);
  } else {
    b.writeUInt16LE(group, 0);
    b.writeUInt16LE(element, 2);
    b.writeUInt16LE(value.length, 6);
  }
  b.write(vr, 4, 'latin1');
  return Buffer.concat([b, value]);
}
