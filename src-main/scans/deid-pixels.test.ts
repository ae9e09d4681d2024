// The pixel data of a de-identified file holds the image and nothing else: real fixture files with
// text planted where the image's bytes go (comments and application segments inside compressed
// frames, bytes after the image, overlays in unused high bits) come out without it, decoding to the
// same pixels (compressed frames are written again as plain pixels); what cannot be decoded is
// refused in words.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src-shared/errors.js';
import { classifyFile } from './classify-file.js';
import { prepareCodec } from './codecs.js';
import { readDicomFile } from './dicom-file.js';
import { UidMapper, deidentifyDicom } from './deidentify.js';
import { frameStoredValues } from './pixel-decode.js';
import {
  FIXTURES,
  phantomBySlice,
  pydicomMissing,
  python,
  tempFolders,
  withPixels,
} from './scans.test-support.js';

const { fresh } = tempFolders('s2m-deid-pixels-');
const noPydicom = pydicomMissing();

/** pydicom crafts a variant of a real file: `mode` says what is planted (see CRAFT). */
const CRAFT = String.raw`
import sys, struct, json, pydicom, numpy as np
from pydicom.encaps import generate_pixel_data_frame, encapsulate
mode, src, dst = sys.argv[1:4]
ds = pydicom.dcmread(src)
seg = lambda m, p: b'\xff' + bytes([m]) + struct.pack('>H', len(p) + 2) + p
if mode in ('jpeg', 'jpegls'):
    frames = list(generate_pixel_data_frame(ds.PixelData, int(ds.get('NumberOfFrames', 1))))
    out = []
    for k, f in enumerate(frames):
        assert f[:2] == b'\xff\xd8'
        planted = seg(0xFE, b'LKJPG01 COM DOE^JANE 19470313') + seg(0xE1, b'Exif\0\0LKJPG02 Artist=DOE')
        planted += seg(0xEE, b'Adobe\0\x64\0\0\0\0\0LKJPG03 DOE')
        out.append(f[:2] + planted + f[2:] + b'LKJPG04 after EOI')
    ds.PixelData = encapsulate(out)
elif mode == 'j2k':
    f = next(generate_pixel_data_frame(ds.PixelData, 1))
    siz_end = 4 + struct.unpack('>H', f[4:6])[0]
    com = lambda t: b'\xff\x64' + struct.pack('>HH', len(t) + 4, 1) + t
    sot = f.index(b'\xff\x90', siz_end)
    psot = struct.unpack('>I', f[sot + 6:sot + 10])[0]
    c2 = com(b'LKJ2K02 tile DOE^JANE')
    tile = f[sot:sot + 6] + struct.pack('>I', psot + len(c2) if psot else 0) + f[sot + 10:sot + 12] + c2
    f = f[:siz_end] + com(b'LKJ2K01 main DOE^JANE') + f[siz_end:sot] + tile + f[sot + 12:] + b'LKJ2K03 after'
    ds.PixelData = encapsulate([f])
elif mode == 'rle':
    from pydicom.uid import RLELossless
    ds.compress(RLELossless)
elif mode == 'overlay-bits':
    a = ds.pixel_array.copy()
    a[10:30, 10:200] |= 0x8000
    ds.PixelData = a.tobytes()
    for tag, vr, v in [(0x60000010, 'US', 512), (0x60000011, 'US', 512), (0x60000100, 'US', 16),
                       (0x60000102, 'US', 15), (0x60000040, 'CS', 'G'), (0x60000050, 'SS', [1, 1]),
                       (0x60000022, 'LO', 'LKOV01 DOE'), (0x60000110, 'CS', 'LKOV02')]:
        ds.add_new(tag, vr, v)
elif mode == 'extra':
    ds.PixelData = ds.PixelData + b'LKPX01 DOE^JANE 19470313 '
ds.save_as(dst)
print(json.dumps(True))
`;

function craft(mode: string, src: string, name: string): string {
  const dst = join(fresh(mode), name);
  python(CRAFT, [mode, src, dst]);
  return dst;
}

/** De-identifies one file; returns the output's path and bytes. */
async function deidentified(path: string): Promise<{ path: string; bytes: Buffer }> {
  const bytes = deidentifyDicom(await readDicomFile(path), new UidMapper());
  const out = join(fresh('out'), 'out.dcm');
  writeFileSync(out, bytes);
  return { path: out, bytes };
}

async function frames(path: string): Promise<number[][]> {
  const c = classifyFile({ path, display: 'f.dcm' });
  if (c.kind !== 'image') throw new Error(`not an image: ${JSON.stringify(c)}`);
  const parsed = await readDicomFile(path);
  return Array.from({ length: c.header.numberOfFrames }, (_, k) =>
    Array.from(frameStoredValues(parsed, c.header, k)),
  );
}

const has = (b: Buffer, text: string): boolean => b.includes(Buffer.from(text, 'latin1'));

describe.skipIf(noPydicom !== null)('pixel data keeps the image alone', () => {
  const compressed: [string, string, string][] = [
    [
      'JPEG lossless, 2 frames in several fragments',
      'multiframe/enhanced-ct-nema-ct0012-jpegll70-fragmented-nobot.dcm',
      'jpeg',
    ],
    ['JPEG lossless process 14', 'transfer-syntax/nm-jpeg-lossless-p14.dcm', 'jpeg'],
    ['JPEG-LS', 'transfer-syntax/ct-512-jpegls-lossless.dcm', 'jpegls'],
    ['JPEG 2000', 'transfer-syntax/mr-ts-j2k-lossless.dcm', 'j2k'],
  ];
  for (const [what, fixture, mode] of compressed) {
    it(`removes comments, application segments and trailing bytes from ${what} frames`, async () => {
      const original = join(FIXTURES, fixture);
      const planted = craft(mode, original, 'planted.dcm');
      const marker = mode === 'j2k' ? 'LKJ2K' : 'LKJPG';
      expect(has(readFileSync(planted), marker)).toBe(true);
      await prepareCodec((await readDicomFile(original)).transferSyntaxUid);
      const out = await deidentified(planted);
      expect(has(out.bytes, marker)).toBe(false);
      // The cleaned frames decode to the original's pixels.
      expect(await frames(out.path)).toEqual(await frames(original));
    });
  }

  it('writes real CT slices compressed as RLE again, the same pixels (re-encoding them overflowed)', async () => {
    for (const slice of phantomBySlice().slice(60, 63)) {
      const rle = craft('rle', slice, 'rle.dcm');
      const out = await deidentified(rle);
      expect(await frames(out.path)).toEqual(await frames(slice));
    }
  });

  it('writes RLE frames again as plain pixels, the same pixels', async () => {
    const original = join(FIXTURES, 'multiframe/enhanced-ct-nema-ct0012-rle.dcm');
    const out = await deidentified(original);
    expect(await frames(out.path)).toEqual(await frames(original));
  });

  it('clears overlay bits above High Bit and removes the overlay groups whole', async () => {
    const slice = phantomBySlice()[70]!;
    const planted = craft('overlay-bits', slice, 'overlay.dcm');
    const before = (await frames(planted))[0]!;
    expect(before.some((v) => v >= 0x1000)).toBe(true);
    const out = await deidentified(planted);
    const after = (await frames(out.path))[0]!;
    expect(after.every((v) => v < 0x1000)).toBe(true);
    expect(after).toEqual(before.map((v) => v & 0x0fff));
    const parsed = await readDicomFile(out.path);
    expect(Object.keys(parsed.dataSet.elements).filter((t) => t.startsWith('x60'))).toEqual([]);
    expect(has(out.bytes, 'LKOV')).toBe(false);
  });

  it('refuses values wider than Bits Stored that no overlay declares: clearing them would change them', async () => {
    // Enamel at 4200 in a file that says 12 bits: cleared, it would be sent as 104 (air).
    const slice = phantomBySlice()[70]!;
    const wide = join(fresh('wide'), 'wide.dcm');
    writeFileSync(
      wide,
      withPixels(readFileSync(slice), (v, c, r) => (c === 256 && r === 256 ? 4200 : v)),
    );
    const e = await deidentified(wide).catch((x: unknown) => x);
    expect(isAppError(e) && e.code).toBe('bad-input');
    expect((e as Error).message).toMatch(/has image values wider than its Bits Stored \(12 bits\)/);
  });

  it('cuts pixel data to the image, leaving out bytes after it', async () => {
    const slice = phantomBySlice()[70]!;
    const planted = craft('extra', slice, 'extra.dcm');
    const out = await deidentified(planted);
    expect(has(out.bytes, 'LKPX01')).toBe(false);
    const el = (await readDicomFile(out.path)).dataSet.elements.x7fe00010!;
    expect(el.length).toBe(512 * 512 * 2);
    expect(await frames(out.path)).toEqual(await frames(slice));
  });

  it('refuses, in words, a compressed frame it cannot read', async () => {
    const planted = craft('jpeg', join(FIXTURES, 'transfer-syntax/nm-jpeg-lossless-p14.dcm'), 'bad.dcm');
    const bytes = readFileSync(planted);
    // The first frame's SOI marker made into something else: the codestream no longer parses.
    const at = bytes.indexOf(Buffer.from([0xff, 0xd8, 0xff, 0xfe]));
    bytes[at + 1] = 0x00;
    writeFileSync(planted, bytes);
    const e = await deidentified(planted).catch((x: unknown) => x);
    expect(isAppError(e) && e.code).toBe('bad-input');
    expect((e as Error).message).toMatch(
      /not sent de-identified: one of its files has a compressed image that cannot be decoded to write it again/,
    );
  });
});
