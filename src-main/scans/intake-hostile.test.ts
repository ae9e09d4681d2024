import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import dicomParser from 'dicom-parser';
import { describe, expect, it } from 'vitest';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { classifyBytes } from './classify-file.js';
import { maxInflated } from './dicom-file.js';
import { fuzzSources, mutate, prng } from './header-fuzz.test-support.js';
import { intake } from './intake.js';
import { FIXTURES, phantomFiles, tempFolders } from './scans.test-support.js';

const { fresh } = tempFolders('s2m-hostile-');

const phantom = fuzzSources(FIXTURES).find(
  (s) => s.name === `ct-head-phantom-1mm/${basename(phantomFiles()[0]!)}`,
)!;

/**
 * A real slice whose header holds `count` extra private elements before its pixel data: a header
 * of 12 * count bytes, which takes dicom-parser a long while to walk.
 */
function withHugeHeader(count: number): Buffer {
  const src = readFileSync(phantomFiles()[0]!);
  const px = dicomParser.parseDicom(src, { untilTag: 'x7fe00010' }).elements.x7fe00010!;
  const at = px.dataOffset - 12; // explicit VR OW: tag, VR, 2 reserved, 4-byte length
  const filler = Buffer.alloc(12 * count);
  for (let i = 0; i < count; i++) {
    const o = 12 * i;
    filler.writeUInt16LE(0x0029, o);
    filler.writeUInt16LE(0x1010, o + 2);
    filler.write('UL', o + 4, 'latin1');
    filler.writeUInt16LE(4, o + 6);
    filler.writeUInt32LE(i, o + 8);
  }
  return Buffer.concat([src.subarray(0, at), filler, src.subarray(at)]);
}

describe('intake that never stalls', () => {
  it('lists each hostile file with its reason and goes on with the rest of the folder', async () => {
    const dir = fresh('hostile');
    for (const f of phantomFiles().slice(0, 5)) copyFileSync(f, join(dir, basename(f)));
    const rand = prng(1);
    writeFileSync(join(dir, 'frames-3000000.dcm'), mutate(phantom, 'frames-3000000', rand));
    writeFileSync(join(dir, 'frames-99999999999.dcm'), mutate(phantom, 'frames-99999999999', rand));
    // Three zeroed bytes where the meta header's transfer syntax meets the next tag: dicom-parser
    // then throws while the fields are read, which used to escape the classifier and end the import.
    const zeroed = Buffer.from(phantom.bytes);
    zeroed.fill(0, 283, 286);
    writeFileSync(join(dir, 'three-zero-bytes.dcm'), zeroed);

    const { result } = await intake([dir], { tempDir: fresh('work') });
    expect(result.series).toHaveLength(1);
    expect(result.series[0]!.slices).toBe(5);
    const problem = (file: string): string | undefined =>
      result.problems.find((p) => p.file === join(dir, file))?.message;
    expect(problem('frames-3000000.dcm')).toBe(
      'frames-3000000.dcm is a damaged or incomplete DICOM file and was left out (its header says it holds 3,000,000 images, but it has room for only one).',
    );
    expect(problem('frames-99999999999.dcm')).toMatch(/says it holds 99,999,999,999 images/);
    // Its transfer syntax now reads "1.2.840.10008.1.2" (implicit VR) over a body that names its VRs:
    // read as explicit, as pydicom reads it, it is the same image as a slice already there.
    expect(problem('three-zero-bytes.dcm')).toBeUndefined();
  });

  it('answers another call while a drop with a huge header is still being read', async () => {
    const bigDir = fresh('big-header');
    // 12 MB of header (a million elements), beside the two absurd frame counts.
    writeFileSync(join(bigDir, 'huge-header.dcm'), withHugeHeader(1_000_000));
    writeFileSync(join(bigDir, 'frames-3000000.dcm'), mutate(phantom, 'frames-3000000', prng(2)));
    const smallDir = fresh('small');
    copyFileSync(phantomFiles()[1]!, join(smallDir, 'one.dcm'));

    let ticks = 0;
    let bigDone = false;
    const ticker = (): void => {
      ticks++;
      if (!bigDone) setImmediate(ticker);
    };
    const big = intake([bigDir], { tempDir: fresh('work') }).then((o) => {
      bigDone = true;
      return o;
    });
    setImmediate(ticker);
    // The other call: a small drop, started after the big one, is served meanwhile. Which of the two
    // ends first depends on how the machine shares its cores, so only the loop's turning is asserted.
    const small = await intake([smallDir], { tempDir: fresh('work') });
    expect(small.result.series[0]!.slices).toBe(1);
    const { result } = await big;
    // The event loop kept turning while the big header was parsed (on a worker thread): a parse on
    // this thread would have held it for the whole 12 MB, leaving a handful of turns at most.
    expect(ticks).toBeGreaterThan(10);
    expect(result.series.map((s) => s.slices)).toEqual([1]);
    expect(result.problems.map((p) => [p.file && basename(p.file), p.code])).toContainEqual([
      'frames-3000000.dcm',
      'corrupt-file',
    ]);
  });

  it('refuses a deflated data set that would unpack to far more than its bytes allow', () => {
    // The real deflated fixture's meta header, then a deflated run of zeros 300 times its own size.
    const real = readFileSync(join(FIXTURES, 'transfer-syntax', 'deflated-explicit-le.dcm'));
    const metaEnd = (dicomParser.readPart10Header(real) as unknown as { position: number }).position;
    const zeros = 80 * 1024 * 1024;
    const bomb = deflateRawSync(Buffer.alloc(zeros), { level: 1 });
    expect(zeros).toBeGreaterThan(maxInflated(bomb.length));
    const r = classifyBytes(Buffer.concat([real.subarray(0, metaEnd), bomb]), {
      path: 'bomb.dcm',
      display: 'bomb.dcm',
    });
    expect(r).toMatchObject({
      kind: 'problem',
      problem: {
        code: 'corrupt-file',
        message:
          'bomb.dcm is a damaged or incomplete DICOM file and was left out (its compressed header unpacks to an absurd size).',
      },
    });
    // The real file, whole, still reads.
    expect(classifyBytes(real, { path: 'real.dcm', display: 'real.dcm' }).kind).toBe('image');
    // A review's bomb: 3 MB of noise, which raised the bound to 600 MB, then 200 MB of zeros.
    const noise = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
    const padded = deflateRawSync(Buffer.concat([noise, Buffer.alloc(200 * 1024 * 1024)]), { level: 1 });
    expect(maxInflated(padded.length)).toBeLessThan(200 * 1024 * 1024);
    const r2 = classifyBytes(Buffer.concat([real.subarray(0, metaEnd), padded]), {
      path: 'b2.dcm',
      display: 'b2.dcm',
    });
    expect(JSON.stringify(r2)).toContain('its compressed header unpacks to an absurd size');
  });

  it('says a deflated data set that unpacks short of its image is incomplete, when it is looked at', async () => {
    // The real deflated fixture with the last 1000 bytes of its inflated data set left out (a review:
    // called fit, then the job failed on it).
    const real = readFileSync(join(FIXTURES, 'transfer-syntax', 'deflated-explicit-le.dcm'));
    const metaEnd = (dicomParser.readPart10Header(real) as unknown as { position: number }).position;
    const inflated = inflateRawSync(real.subarray(metaEnd));
    const short = deflateRawSync(inflated.subarray(0, inflated.length - 1000));
    const dir = fresh('short-deflated');
    writeFileSync(join(dir, 'short.dcm'), Buffer.concat([real.subarray(0, metaEnd), short]));
    const { result } = await intake([dir], { tempDir: fresh('work') });
    expect(result.series[0]!.problems).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        code: 'truncated-file',
        message: expect.stringMatching(/^short\.dcm is incomplete: it ends 1000 bytes before its image does/),
      }),
    );
  });

  it('reads a deflated file whatever its preamble holds, the same as with zeros there', () => {
    // dicom-parser parses an inflated data set from the file's first byte: a preamble that is not
    // zeros (a vendor's, or text) made this valid file fail as damaged.
    const real = readFileSync(join(FIXTURES, 'transfer-syntax', 'deflated-explicit-le.dcm'));
    const texted = Buffer.from(real);
    texted.write('Vendor preamble: DOE^JOHN 1965-03-12 '.padEnd(128, '\x01'), 0, 128, 'latin1');
    const read = (bytes: Buffer) => classifyBytes(bytes, { path: 'deflated.dcm', display: 'deflated.dcm' });
    const a = read(real);
    const b = read(texted);
    expect(b.kind).toBe('image');
    if (a.kind !== 'image' || b.kind !== 'image') return;
    expect({ ...b.header, fileId: undefined }).toEqual({ ...a.header, fileId: undefined });
  });
});

describe('image data whose lengths cannot be, found when the files are looked at', () => {
  // A review's cases: inspect called them fit, and the job then failed on them, naming a packed copy.
  it('refuses uncompressed image data of undefined length or longer than the file, and a first fragment that ends past it', async () => {
    const dir = fresh('lengths');
    // A real phantom slice whose uncompressed pixel data says its length is undefined.
    const slice = readFileSync(phantomFiles()[0]!);
    const px = dicomParser.parseDicom(slice, { untilTag: 'x7fe00010' }).elements.x7fe00010!;
    slice.writeUInt32LE(0xffffffff, px.dataOffset - 4);
    writeFileSync(join(dir, 'undefined.dcm'), slice);
    // The same slice whose pixel data claims 0xFFFFFFF0 bytes: a length past the file's end, not a
    // count of 524,287 images (as it was said).
    slice.writeUInt32LE(0xfffffff0, px.dataOffset - 4);
    const other = fresh('long');
    writeFileSync(join(other, 'long.dcm'), slice);
    // A real RLE image whose first fragment claims 0x7FFFFFF0 bytes.
    const rle = readFileSync(join(FIXTURES, 'transfer-syntax', 'mr-ts-rle.dcm'));
    const fragment = dicomParser.parseDicom(rle).elements.x7fe00010!.fragments![0]!;
    rle.writeUInt32LE(0x7ffffff0, fragment.position - 4);
    writeFileSync(join(dir, 'beyond.dcm'), rle);
    // Two drops: the two copies of the slice would be one image twice in one.
    const errors = [];
    for (const drop of [dir, other]) {
      const { result } = await intake([drop], { tempDir: fresh('work') });
      errors.push(...result.series.flatMap((s) => s.problems.filter((p) => p.severity === 'error')));
    }
    expect(errors.map((p) => p.message)).toEqual(
      expect.arrayContaining([
        'undefined.dcm gives its image data an undefined length, as only compressed images have, but says its pixels are not compressed (Explicit VR Little Endian): it is damaged.',
        expect.stringMatching(/^beyond\.dcm is incomplete: it ends \d+ bytes before its image does/),
        expect.stringMatching(/^long\.dcm is incomplete: it ends \d+ bytes before its image does/),
      ]),
    );
  });
});
