// Compression of the upload package by connection: stored entries for the loopback engine (it would
// only inflate them again), deflate for remote services (the upload is the slow part there).
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { packageSeries } from './package-series.js';
import { FIXTURES, phantomBySlice } from './scans.test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'package-series-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Entry {
  name: string;
  method: number;
  data: Buffer;
}

function readZip(path: string): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const out: Entry[] = [];
      zip.on('entry', (e: yauzl.Entry) => {
        zip.openReadStream(e, (err2, s) => {
          if (err2) return reject(err2);
          const chunks: Buffer[] = [];
          s.on('data', (c: Buffer) => chunks.push(c));
          s.on('end', () => {
            out.push({ name: e.fileName, method: e.compressionMethod, data: Buffer.concat(chunks) });
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

const slices = phantomBySlice().slice(0, 6);
const files = slices.map((path) => ({ path, size: statSync(path).size }));
const total = files.reduce((n, f) => n + f.size, 0);

describe('packageSeries compression', () => {
  it('stores the slices unchanged when compression is off (the loopback engine)', async () => {
    const pkg = await packageSeries(files, false, 'stored', {
      deidentify: false,
      compress: false,
      outDir: join(dir, 'stored'),
    });
    const entries = await readZip(pkg.path);
    expect(entries.map((e) => e.method)).toEqual(slices.map(() => 0));
    entries.forEach((e, k) => expect(e.data.equals(readFileSync(slices[k]!))).toBe(true));
    // Each named for its place and the user's file, which a message naming the slice then names too
    // (it named "slice-00021.dcm", which the user could not find).
    expect(entries.map((e) => e.name)).toEqual(
      slices.map((f, k) => `slice-0000${k + 1}-${basename(f).replace(/\.dcm$/i, '')}.dcm`),
    );
    // Stored: the package is the slices plus zip headers, nothing smaller.
    expect(pkg.bytes).toBeGreaterThan(total);
  });

  it('deflates the slices by default (remote services)', async () => {
    const pkg = await packageSeries(files, false, 'deflated', {
      deidentify: false,
      outDir: join(dir, 'deflated'),
    });
    const entries = await readZip(pkg.path);
    expect(entries.map((e) => e.method)).toEqual(slices.map(() => 8));
    entries.forEach((e, k) => expect(e.data.equals(readFileSync(slices[k]!))).toBe(true));
    expect(pkg.bytes).toBeLessThan(total);
  });

  it('says which file went missing when one is read ahead of its turn, and leaves nothing behind', async () => {
    // The next slice is read while the one before is written: its failure surfaces once, in words.
    const gone = join(dir, 'slice-that-went-away.dcm');
    const broken = [...files.slice(0, 3), { path: gone, size: files[3]!.size }, ...files.slice(4)];
    const outDir = join(dir, 'missing');
    const err = await packageSeries(broken, false, 'missing', {
      deidentify: false,
      compress: false,
      outDir,
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'bad-input' });
    expect((err as Error).message).toContain('slice-that-went-away.dcm');
    expect(existsSync(outDir) ? readdirSync(outDir) : []).toEqual([]);
  });

  it('refuses a slice swapped for a pipe since the scan was looked at, without waiting on it', async () => {
    // Opened the usual way, a pipe holds the open (and a thread of the pool) until someone writes to
    // it: the package never ends, nor does the process.
    const pipe = join(dir, 'slice-now-a-pipe.dcm');
    execFileSync('mkfifo', [pipe]);
    const swapped = [...files.slice(0, 2), { path: pipe, size: files[2]!.size }, ...files.slice(3)];
    for (const deidentify of [false, true]) {
      const outDir = join(dir, `pipe-${deidentify}`);
      const err = await packageSeries(swapped, false, 'pipe', { deidentify, compress: false, outDir }).catch(
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: 'bad-input' });
      expect((err as Error).message).toContain('slice-now-a-pipe.dcm is no longer a regular file');
      expect(existsSync(outDir) ? readdirSync(outDir) : []).toEqual([]);
    }
  });

  it('keeps the slices of packages made at once apart (their read buffers are shared between packages)', async () => {
    // Four packages at a time, twice over: the spare buffers go from one package to the next, and
    // the two halves differ in every entry, so a buffer read into by the wrong package shows.
    const halves = [files.slice(0, 3), files.slice(3, 6)];
    for (let round = 0; round < 2; round++) {
      const pkgs = await Promise.all(
        [0, 1, 0, 1].map((h, i) =>
          packageSeries(halves[h]!, false, `at-once-${round}-${i}`, {
            deidentify: false,
            compress: false,
            outDir: join(dir, `at-once-${round}-${i}`),
          }).then(async (pkg) => ({ h, entries: await readZip(pkg.path) })),
        ),
      );
      for (const { h, entries } of pkgs) {
        expect(entries).toHaveLength(3);
        entries.forEach((e, k) => expect(e.data.equals(readFileSync(halves[h]![k]!.path))).toBe(true));
      }
    }
  });

  it('stamps every entry 2000-01-01 00:00 with no time-zone trace, whatever the zone (gzip: the yazl path)', async () => {
    const zone = process.env.TZ;
    const stamps: [number, number, number[]][] = [];
    try {
      for (const tz of ['Asia/Kolkata', 'America/New_York']) {
        // Node reads TZ again when it is set: local time below is that zone's.
        process.env.TZ = tz;
        const pkg = await packageSeries(files, false, 'gz', {
          deidentify: false,
          gzip: true,
          outDir: join(dir, `tz-${tz.replace('/', '-')}`),
        });
        const zipPath = join(dir, `tz-${tz.replace('/', '-')}.zip`);
        execFileSync('sh', ['-c', `gzip -dc '${pkg.path}' > '${zipPath}'`]);
        stamps.push(...(await stampsOf(zipPath)));
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
    // DOS date 2000-01-01 is ((2000 - 1980) << 9) | (1 << 5) | 1; time 00:00:00 is 0. No extra
    // fields: the extended timestamp (0x5455) held UTC, and its offset from the DOS time the zone.
    expect(stamps).toEqual(Array(files.length * 2).fill([0x2821, 0, []]));
  });
});

function stampsOf(path: string): Promise<[number, number, number[]][]> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const out: [number, number, number[]][] = [];
      zip.on('entry', (e: yauzl.Entry) => {
        out.push([e.lastModFileDate, e.lastModFileTime, e.extraFields.map((f) => f.id)]);
        zip.readEntry();
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

describe('packageSeries of one multi-frame file', () => {
  // 1,052,902 bytes: more than the copy's 1 MiB buffer, so the copy goes on past its first read.
  const multiFrame = join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm');

  it('sends the file as it is, private to the user, over what a killed run left', async () => {
    const outDir = join(dir, 'multiframe');
    mkdirSync(outDir);
    // A longer, world-readable .part of an earlier run that was killed: cut to the copy, made private.
    const stale = join(outDir, 'volume.dcm.part');
    writeFileSync(stale, Buffer.alloc(3 << 20, 7));
    chmodSync(stale, 0o644);
    const source = { path: multiFrame, size: statSync(multiFrame).size };
    expect(source.size).toBeGreaterThan(1 << 20);
    const pkg = await packageSeries([source], true, 'volume', { deidentify: false, outDir });
    expect(pkg.path).toBe(join(outDir, 'volume.dcm'));
    expect(pkg.bytes).toBe(source.size);
    expect(readFileSync(pkg.path).equals(readFileSync(multiFrame))).toBe(true);
    if (process.platform !== 'win32') expect(statSync(pkg.path).mode & 0o777).toBe(0o600);
    expect(readdirSync(outDir)).toEqual(['volume.dcm']);
  });
});
