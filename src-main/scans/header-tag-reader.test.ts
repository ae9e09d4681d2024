import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import dicomParser from 'dicom-parser';
import { describe, expect, it } from 'vitest';
import { classifyBytes, classifyFile, classifyQuickly, classifyRead } from './classify-file.js';
import { bufferSource, readDicomHeader, readDicomHeaderSync, type HeaderRead } from './dicom-file.js';
import { HEADER_TAGS } from './header-tags.js';
import { fuzzSources, mutate, MUTATIONS, prng } from './header-fuzz.test-support.js';
import { readHeaderPrefix } from './header-prefix.js';
import { FIXTURES, phantomFiles } from './scans.test-support.js';

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

  it('reads no more than it is allowed, however long the header', () => {
    const src = readFileSync(phantomFiles()[0]!);
    const px = dicomParser.parseDicom(src, { untilTag: 'x7fe00010' }).elements.x7fe00010!;
    const at = px.dataOffset - 12;
    // A private OB element of 4 MB before the pixel data: the header goes on past any bound.
    const filler = Buffer.alloc(12 + 4 * 1024 * 1024);
    filler.writeUInt16LE(0x0029, 0);
    filler.writeUInt16LE(0x1010, 2);
    filler.write('OB', 4, 'latin1');
    filler.writeUInt32LE(4 * 1024 * 1024, 8);
    const bytes = Buffer.concat([src.subarray(0, at), filler, src.subarray(at)]);
    const inner = bufferSource(bytes);
    let read = 0;
    const counted = {
      size: inner.size,
      read: (into: Buffer, pos: number, length: number, position: number) => {
        const n = inner.read(into, pos, length, position);
        read += n;
        return n;
      },
    };
    expect(readHeaderPrefix(counted, 256 * 1024)).toBe('defer');
    expect(read).toBeLessThanOrEqual(256 * 1024);
    // Without a bound it reads on to the pixel data, and agrees with dicom-parser.
    expect(readHeaderPrefix(bufferSource(bytes), Infinity)).not.toBe('defer');
    expect(classifyBytes(bytes, { path: 'x', display: 'x' })).toEqual(byDicomParser(bytes, 'x'));
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
