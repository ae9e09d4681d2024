import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import dicomParser from 'dicom-parser';
import { describe, expect, it } from 'vitest';
import { classifyBytes, classifyFile, classifyQuickly, classifyRead } from './classify-file.js';
import {
  bufferSource,
  readDicomHeader,
  readDicomHeaderSync,
  type ByteSource,
  type HeaderRead,
} from './dicom-file.js';
import { HEADER_TAGS } from './header-tags.js';
import { fuzzSources, mutate, MUTATIONS, prng } from './header-fuzz.test-support.js';
import { readHeaderPrefix } from './header-prefix.js';
import { FIXTURES, patchElement, phantomFiles, sameLength, tempFolders } from './scans.test-support.js';

const { fresh } = tempFolders('s2m-tag-reader-');

function allFixtureFiles(dir = FIXTURES): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? allFixtureFiles(p) : [p];
    });
}

/** The reference: every header read by dicom-parser alone, as before the tag-only reader. */
const byDicomParser = (bytes: Buffer, name: string) =>
  classifyRead({ path: name, display: name }, () => readDicomHeader(bufferSource(bytes)));

/** Where a file's pixel data value starts, by dicom-parser. */
const pixelDataAt = (b: Buffer): number =>
  dicomParser.parseDicom(b, { untilTag: 'x7fe00010' }).elements.x7fe00010!.dataOffset;

/** `src` with a private OB element of `size` bytes just before its pixel data: a longer header. */
function withPrivateBlock(src: Buffer, size: number): Buffer {
  const at = pixelDataAt(src) - 12;
  const block = Buffer.alloc(12 + size);
  block.writeUInt16LE(0x0029, 0);
  block.writeUInt16LE(0x1010, 2);
  block.write('OB', 4, 'latin1');
  block.writeUInt32LE(size, 8);
  return Buffer.concat([src.subarray(0, at), block, src.subarray(at)]);
}

/** A source over `bytes` that tells `seen` the length each read asks for and the bytes it got. */
function watchedSource(bytes: Buffer, seen: (asked: number, got: number) => void): ByteSource {
  const inner = bufferSource(bytes);
  return {
    size: (end) => inner.size(end),
    identity: () => inner.identity(),
    read: (into, at, length, position) => {
      const n = inner.read(into, at, length, position);
      seen(length, n);
      return n;
    },
  };
}

describe('tag-only header reader', () => {
  it('classifies every fixture file exactly as dicom-parser does, and reads the plain slices itself', () => {
    let quick = 0;
    for (const file of allFixtureFiles()) {
      const c = { path: file, display: file };
      expect(classifyFile(c), file).toEqual(classifyRead(c, () => readDicomHeaderSync(file)));
      const q = classifyQuickly(c, 256 * 1024);
      if (q) {
        quick++;
        expect(q, file).toEqual(classifyFile(c));
      }
    }
    for (const file of phantomFiles()) {
      expect(readHeaderPrefix(bufferSource(readFileSync(file)), 64 * 1024), file).not.toBe('defer');
    }
    expect(quick).toBeGreaterThan(phantomFiles().length);
  });

  it('agrees with dicom-parser on 3,000 damaged headers, or leaves them to it', () => {
    const sources = fuzzSources(FIXTURES);
    const rand = prng(20261125);
    let taken = 0;
    for (let i = 0; i < 3000; i++) {
      const src = sources[rand(sources.length)]!;
      const kind = MUTATIONS[rand(MUTATIONS.length)]!;
      const bytes = mutate(src, kind, rand);
      const name = `file${i}`;
      const mine = classifyBytes(bytes, { path: name, display: name });
      expect(mine, `${src.name} ${kind} #${i}`).toEqual(byDicomParser(bytes, name));
      if (readHeaderPrefix(bufferSource(bytes), Infinity) !== 'defer') taken++;
    }
    // Most damage is in values the reader skips: it must still take a fair share itself.
    expect(taken).toBeGreaterThan(1000);
  });

  it('reads each file of a series as its own, whatever it shares with the file before', () => {
    // The reader compares a header with the last one it walked in full and keeps the values they
    // share: files that differ from their neighbours here and there must still read as themselves.
    const texts: [string, string][] = [
      ['x00100010', 'X^Y'],
      ['x00080060', 'MR'],
      ['x00200037', '0\\1\\0\\0\\0\\1'],
      ['x00280030', '0.5\\0.5'],
      ['x00281050', '300'],
      ['x0020000e', '1.2.3.4'],
      ['x00080016', '1.2.840.10008.5.1.4.1.1.7'],
    ];
    const files = phantomFiles().slice(0, 40);
    const rand = prng(7);
    let changed = 0;
    for (const [i, file] of files.entries()) {
      const bytes = readFileSync(file);
      if (i % 3 === 1) {
        const [tag, value] = texts[rand(texts.length)]!;
        patchElement(bytes, tag, sameLength(bytes, tag, value));
        changed++;
      }
      if (i % 7 === 3) {
        const rows = Buffer.alloc(2);
        rows.writeUInt16LE(256);
        patchElement(bytes, 'x00280010', rows);
        changed++;
      }
      const name = `slice${i}`;
      expect(classifyBytes(bytes, { path: name, display: name }), name).toEqual(byDicomParser(bytes, name));
      expect(readHeaderPrefix(bufferSource(bytes), Infinity), name).not.toBe('defer');
    }
    expect(changed).toBeGreaterThan(10);
  });

  it('reads a header of thousands of elements, and the files after it, as dicom-parser does', () => {
    // Too many elements to note one by one: the reader walks such a header without keeping it as the
    // template for the next files, which must still read as themselves.
    const src = readFileSync(phantomFiles()[0]!);
    const at = pixelDataAt(src) - 12;
    const filler = Buffer.alloc(8 * 10_000);
    for (let i = 0; i < 10_000; i++) {
      filler.writeUInt16LE(0x7fd1, 8 * i);
      filler.writeUInt16LE(0x1000 + i, 8 * i + 2);
      filler.write('LO', 8 * i + 4, 'latin1');
    }
    const crowded = Buffer.concat([src.subarray(0, at), filler, src.subarray(at)]);
    for (const [name, bytes] of [
      ['crowded', crowded],
      ...phantomFiles()
        .slice(1, 4)
        .map((f) => [f, readFileSync(f)] as const),
    ] as const) {
      expect(classifyBytes(bytes, { path: name, display: name }), name).toEqual(byDicomParser(bytes, name));
    }
    expect(readHeaderPrefix(bufferSource(crowded), Infinity)).not.toBe('defer');
  });

  it('tells the size of a file exactly, whatever follows its pixel data or is missing of it', () => {
    // The size is confirmed by one small read where the pixel data ends, or asked of the system.
    const dir = fresh('sizes');
    const src = readFileSync(phantomFiles()[0]!);
    for (const extra of [0, 1, 10, 62, 63, 64, 100, 5000, -1, -1000]) {
      const bytes =
        extra >= 0 ? Buffer.concat([src, Buffer.alloc(extra, 0x20)]) : src.subarray(0, src.length + extra);
      const file = join(dir, `extra${extra}`);
      writeFileSync(file, bytes);
      const c = { path: file, display: file };
      const r = classifyFile(c);
      expect(r, file).toEqual(classifyRead(c, () => readDicomHeaderSync(file)));
      expect(r.kind === 'image' && r.header.fileSize, file).toBe(bytes.length);
    }
  });

  it('reads no more than it is allowed, however long the header', () => {
    // A private OB element of 4 MB before the pixel data: the header goes on past any bound.
    const bytes = withPrivateBlock(readFileSync(phantomFiles()[0]!), 4 * 1024 * 1024);
    let read = 0;
    const counted = watchedSource(bytes, (_, got) => (read += got));
    expect(readHeaderPrefix(counted, 256 * 1024)).toBe('defer');
    expect(read).toBeLessThanOrEqual(256 * 1024);
    // Without a bound it reads on to the pixel data, and agrees with dicom-parser.
    expect(readHeaderPrefix(bufferSource(bytes), Infinity)).not.toBe('defer');
    expect(classifyBytes(bytes, { path: 'x', display: 'x' })).toEqual(byDicomParser(bytes, 'x'));
  });

  it('first reads about as much of a file as the header before it needed, and still reads each whole', () => {
    const phantom = readFileSync(phantomFiles()[0]!);
    const teeth = readFileSync(join(FIXTURES, 'ct-human-cranium-teeth', 'slice001.dcm'));
    // The phantom slice with a 20 KB private element before its pixel data: a header past 16 KB.
    const long = withPrivateBlock(phantom, 20 * 1024);
    /** The header's length up to its pixel data value, in whole 4 KB pages with 512 bytes to spare. */
    const pages = (b: Buffer): number => Math.ceil((pixelDataAt(b) + 512) / 4096) * 4096;
    expect([pages(teeth), pages(phantom), pages(long)]).toEqual([4096, 8192, 28672]);

    const asked: number[] = [];
    const read = (bytes: Buffer, name: string) => {
      let first = true;
      const src = watchedSource(bytes, (length) => {
        if (first) asked.push(length);
        first = false;
      });
      const c = { path: name, display: name };
      const mine = classifyRead(c, () => {
        const r = readHeaderPrefix(src, Infinity);
        return r === 'defer' ? undefined : r;
      });
      expect(mine, name).toEqual(byDicomParser(bytes, name));
      expect(mine.kind, name).toBe('image');
    };
    // Small, mid-sized and long headers in turn, each length twice (the size settles) and back again.
    const order: [Buffer, string][] = [
      [teeth, 'teeth'],
      [phantom, 'phantom'],
      [phantom, 'phantom again'],
      [long, 'long'],
      [long, 'long again'],
      [teeth, 'teeth after long'],
      [teeth, 'teeth again'],
      [phantom, 'phantom after teeth'],
      [long, 'long after phantom'],
    ];
    for (const [bytes, name] of order) read(bytes, name);
    // Each first read asks for what the header before needed (a header that needs less than half of
    // it shrinks it); a longer header than that is read on.
    expect(asked.slice(1)).toEqual([4096, 8192, 8192, 28672, 28672, 4096, 4096, 8192]);
  });

  it('keeps every tag the header fields and the classifier ask for', () => {
    const asked = new Set<string>();
    for (const file of allFixtureFiles()) {
      let read: HeaderRead;
      try {
        const r = readDicomHeaderSync(file);
        if ('notDicom' in r) continue;
        read = r;
      } catch {
        continue;
      }
      const ds = read.parsed.dataSet;
      ds.elements = new Proxy(ds.elements, {
        get(target, key, receiver) {
          if (typeof key === 'string') asked.add(key);
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
      classifyRead({ path: file, display: file }, () => read);
    }
    expect(asked.size).toBeGreaterThan(30);
    expect([...asked].filter((t) => t !== 'x7fe00010' && !HEADER_TAGS.includes(t))).toEqual([]);
  });
});
