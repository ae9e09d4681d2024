import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { once } from 'node:events';
import yazl from 'yazl';
import { unpackInput, unsafeEntryName, type UnpackedInput } from './unpack.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-unpack-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function makeZip(path: string, entries: Record<string, string>, compress = true): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(entries)) zip.addBuffer(Buffer.from(text), name, { compress });
  zip.end();
  const out = createWriteStream(path);
  zip.outputStream.pipe(out);
  await once(out, 'close');
}

/** What the volume reader would see of each file (none is DICOM, so the first bytes). */
function texts(u: UnpackedInput): string[] {
  return u.files.map((f) => {
    const h = u.source.header(f);
    return 'notDicom' in h ? h.head.toString() : 'dicom';
  });
}

describe('unpackInput', () => {
  it('passes a .dcm through and inflates a .dcm.gz with zlib', async () => {
    const plain = join(dir, 'a.dcm');
    await writeFile(plain, 'DICM');
    expect((await unpackInput({ path: plain, extension: '.dcm' }, join(dir, 'w1'))).files).toEqual([plain]);
    const gz = join(dir, 'a.dcm.gz');
    await writeFile(gz, gzipSync(Buffer.from('slice bytes')));
    const [out] = (await unpackInput({ path: gz, extension: '.dcm.gz' }, join(dir, 'w2'))).files;
    expect(await readFile(out as string, 'utf8')).toBe('slice bytes');
  });

  it('extracts a zip of slices (also gzipped), skipping folders and Finder litter', async () => {
    const zip = join(dir, 's.zip');
    await makeZip(zip, {
      'series/IM1': 'one',
      'series/IM2': 'two',
      '__MACOSX/series/._IM1': 'x',
      'series/.DS_Store': 'y',
    });
    const { files } = await unpackInput({ path: zip, extension: '.zip' }, join(dir, 'w3'));
    expect(files.map((f) => f.slice(f.indexOf('slices')))).toEqual([
      'slices/series/IM1',
      'slices/series/IM2',
    ]);
    await writeFile(join(dir, 's.zip.gz'), gzipSync(await readFile(zip)));
    expect(
      (await unpackInput({ path: join(dir, 's.zip.gz'), extension: '.zip.gz' }, join(dir, 'w4'))).files,
    ).toHaveLength(2);
  });

  it('reads a stored zip where its entries lie, inflates a deflated one in memory, and writes out what exceeds the budget', async () => {
    const deflated = join(dir, 'm.zip');
    await makeZip(deflated, { 'series/IM1': 'one', 'series/IM2': 'two!' });
    const stored = join(dir, 'm0.zip');
    await makeZip(stored, { 'series/IM1': 'one', 'series/IM2': 'two!' }, false);
    const tail = (f: string): string => f.slice(f.indexOf('slices'));
    for (const [zip, w] of [
      [deflated, 'w8'],
      [stored, 'w8s'],
    ] as const) {
      const held = await unpackInput({ path: zip, extension: '.zip' }, join(dir, w));
      expect(held.files.map(tail)).toEqual(['slices/series/IM1', 'slices/series/IM2']);
      // Nothing was written: the volume reader gets the bytes from memory, or from the zip itself.
      await expect(readdir(join(dir, w, 'slices'))).rejects.toMatchObject({ code: 'ENOENT' });
      expect(texts(held)).toEqual(['one', 'two!']);
      const [one] = held.files as [string];
      if (zip === stored) {
        // Where IM1 lies in the zip: its bytes, read from there.
        const r = held.source.region?.(one);
        expect(r?.file).toBe(stored);
        expect((await readFile(stored)).subarray(r!.offset, r!.offset + r!.size).toString()).toBe('one');
        expect(held.source.bytes?.(one)).toBeUndefined();
      } else {
        expect(held.source.bytes?.(one)?.toString()).toBe('one');
        expect(held.source.region?.(one)).toBeUndefined();
      }
    }
    // Room for 3 inflated bytes: IM1 is inflated in memory, IM2 is written out.
    const split = await unpackInput({ path: deflated, extension: '.zip' }, join(dir, 'w9'), undefined, 3);
    expect(await readFile(split.files[1] as string, 'utf8')).toBe('two!');
    await expect(readFile(split.files[0] as string)).rejects.toThrow();
    expect(texts(split)).toEqual(['one', 'two!']);
    // Stored entries take none of the budget: they are read where they lie.
    const none = await unpackInput({ path: stored, extension: '.zip' }, join(dir, 'w10'), undefined, 0);
    await expect(readdir(join(dir, 'w10', 'slices'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(texts(none)).toEqual(['one', 'two!']);
  });

  it.skipIf(process.platform === 'win32')(
    'writes what it unpacks private to the user: 0600 files in 0700 folders',
    async () => {
      const deflated = join(dir, 'p.zip');
      await makeZip(deflated, { 'series/deep/IM1': 'one', 'series/IM2': 'two' });
      await writeFile(join(dir, 'p.zip.gz'), gzipSync(await readFile(deflated)));
      const work = join(dir, 'w11');
      // No room in memory: every entry is written out, after the zip itself is inflated to disk.
      const { files } = await unpackInput(
        { path: join(dir, 'p.zip.gz'), extension: '.zip.gz' },
        work,
        undefined,
        0,
      );
      expect(files).toHaveLength(2);
      for (const f of files) expect(await readFile(f, 'utf8')).toMatch(/^(one|two)$/);
      const modeOf = async (p: string): Promise<string> => ((await stat(p)).mode & 0o777).toString(8);
      const folders = [
        work,
        join(work, 'slices'),
        join(work, 'slices', 'series'),
        join(work, 'slices', 'series', 'deep'),
      ];
      expect(await Promise.all(folders.map(modeOf))).toEqual(folders.map(() => '700'));
      const written = [join(work, 'input.zip'), ...files];
      expect(await Promise.all(written.map(modeOf))).toEqual(written.map(() => '600'));
    },
  );

  it('refuses an entry that climbs out with ".." and writes nothing outside', async () => {
    // yazl refuses to write such a name, so write "aa/evil" and patch the name bytes to "../evil".
    const zip = join(dir, 'evil.zip');
    await makeZip(zip, { 'aa/evil': 'pwned', ok: 'fine' });
    const bytes = await readFile(zip);
    await writeFile(zip, Buffer.from(bytes.toString('latin1').replaceAll('aa/evil', '../evil'), 'latin1'));
    await expect(unpackInput({ path: zip, extension: '.zip' }, join(dir, 'w5'))).rejects.toMatchObject({
      code: 'bad-input',
      message: expect.stringMatching(/"\.\.\/evil" would be written outside its folder/),
    });
    expect(await readdir(dir)).not.toContain('evil');
  });

  it('says so when the file is not a zip or not gzip', async () => {
    const junk = join(dir, 'junk.zip');
    await writeFile(junk, 'not a zip at all');
    await expect(unpackInput({ path: junk, extension: '.zip' }, join(dir, 'w6'))).rejects.toMatchObject({
      code: 'bad-input',
      message: expect.stringMatching(/not a readable zip/),
    });
    await expect(unpackInput({ path: junk, extension: '.dcm.gz' }, join(dir, 'w7'))).rejects.toMatchObject({
      code: 'bad-input',
      message: expect.stringMatching(/not a valid gzip/),
    });
  });

  it('refuses an upload that unpacks to far more than its size could hold, before writing it', async () => {
    // 96 MiB of zeros deflates to about 100 KB: past the 64 MiB any upload may unpack to, and a
    // hundred times its size. With the 8 GiB ceiling alone, 7 MB of such entries wrote 7 GiB (a review).
    const zeros = Buffer.alloc(96 * 1024 ** 2);
    const zip = join(dir, 'bomb.zip');
    const z = new yazl.ZipFile();
    z.addBuffer(zeros, 's000.dcm', { compress: true });
    z.end();
    const out = createWriteStream(zip);
    z.outputStream.pipe(out);
    await once(out, 'close');
    const gz = join(dir, 'bomb.dcm.gz');
    await writeFile(gz, gzipSync(zeros));
    for (const [path, extension] of [
      [zip, '.zip'],
      [gz, '.dcm.gz'],
    ] as const) {
      const work = join(dir, `work-bomb${extension}`);
      await expect(unpackInput({ path, extension }, work)).rejects.toMatchObject({
        code: 'bad-input',
        message: expect.stringMatching(
          /unpacks to more than 64(\.0)? MiB, far more than a scan of its size could/,
        ),
      });
    }
  });

  it('counts a gzipped zip once: its entries, not also the zip they lie in', async () => {
    // 40 MiB of zeros stored in a zip, gzipped: 40 KB sent, 64 MiB allowed; counted twice it was 80.
    const zip = join(dir, 'big-stored.zip');
    const z = new yazl.ZipFile();
    z.addBuffer(Buffer.alloc(40 * 1024 ** 2), 's000.dcm', { compress: false });
    z.end();
    const out = createWriteStream(zip);
    z.outputStream.pipe(out);
    await once(out, 'close');
    const gz = join(dir, 'big-stored.zip.gz');
    await writeFile(gz, gzipSync(await readFile(zip)));
    const unpacked = await unpackInput({ path: gz, extension: '.zip.gz' }, join(dir, 'work-zipgz'));
    expect(unpacked.files.map((f) => f.split('/').pop())).toEqual(['s000.dcm']);
  });

  it('names the unsafe entry names it would refuse', () => {
    expect(unsafeEntryName('a/../../b')).toMatch(/\.\./);
    expect(unsafeEntryName('/etc/passwd')).toMatch(/absolute/);
    expect(unsafeEntryName('C:/x')).toMatch(/absolute/);
    expect(unsafeEntryName('a\\b')).toMatch(/backslash/);
    expect(unsafeEntryName('series/IM1')).toBeNull();
  });
});
