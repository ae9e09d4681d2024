// DICOM encodings beyond the plain ones, each derived from a real fixture with pydicom at test time
// (coverage-files.py) and compared with the pixels pydicom itself reads.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src-shared/errors.js';
import { classifyFile } from './classify-file.js';
import { prepareCodec } from './codecs.js';
import { readDicomFile } from './dicom-file.js';
import type { DicomHeader } from './header-fields.js';
import { intake } from './intake.js';
import { frameStoredValues } from './pixel-decode.js';
import { FIXTURES, pydicomMissing } from './scans.test-support.js';
import { readVolume } from './volume-reader.js';

const here = dirname(fileURLToPath(import.meta.url));
const missing = pydicomMissing();
const out = mkdtempSync(join(tmpdir(), 's2m-coverage-'));
let shapes: Record<string, [number, number]> = {};
/** pydicom's own test files (shipped with Debian's pydicom), by name. */
let pydicomFiles: Record<string, string> = {};

beforeAll(() => {
  if (missing) throw new Error(`pydicom is the reference here: ${missing}`);
  const r = spawnSync('/usr/bin/python3', [join(here, 'coverage-files.py'), FIXTURES, out], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`coverage-files.py failed: ${r.stderr}`);
  const made = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
    shapes: typeof shapes;
    pydicomFiles: typeof pydicomFiles;
  };
  shapes = made.shapes;
  pydicomFiles = made.pydicomFiles;
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

const file = (name: string): string => pydicomFiles[`${name}.dcm`] ?? join(out, `${name}.dcm`);

function header(name: string): DicomHeader {
  const c = classifyFile({ path: file(name), display: `${name}.dcm` });
  if (c.kind !== 'image') throw new Error(`${name} was not taken for an image: ${JSON.stringify(c)}`);
  return c.header;
}

/** Our stored values of frame 0, next to pydicom's. */
async function ourAndPydicoms(name: string): Promise<{ ours: number[]; theirs: number[] }> {
  const h = header(name);
  expect(await prepareCodec(h.transferSyntaxUid)).toBe(true);
  const ours = Array.from(frameStoredValues(await readDicomFile(file(name)), h, 0));
  const ref = readFileSync(join(out, `${name}.ref`));
  const theirs = Array.from(new Int32Array(ref.buffer, ref.byteOffset, ref.length / 4));
  const [rows, columns] = shapes[name]!;
  expect([h.rows, h.columns]).toEqual([rows, columns]);
  return { ours, theirs };
}

/** How many values differ (all must match exactly: the same data, read two ways). */
function differing(a: number[], b: number[]): number {
  expect(a).toHaveLength(b.length);
  let n = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) n++;
  return n;
}

describe('DICOM coverage, against pydicom', () => {
  it.each(['ybr-full-422', 'ybr-full'])(
    'reads uncompressed %s (a grey CT stored as colour) as its luminance, as pydicom gives it',
    async (name) => {
      const { ours, theirs } = await ourAndPydicoms(name);
      expect(differing(ours, theirs)).toBe(0);
      expect(new Set(ours).size).toBeGreaterThan(50); // a real image, not a flat one
      const { result } = await intake([file(name)], { tempDir: join(out, 'work') });
      const s = result.series[0]!;
      // Neither "damaged" (its pixel data is 2 bytes per pixel, not 3) nor refused as colour.
      // One slice is not a scan; that is the only thing said of it.
      expect(s.problems.map((p) => p.code)).toEqual(['single-image']);
    },
  );

  it('detects explicit big endian without preamble or meta header, names it, and reads it', async () => {
    const h = header('be-no-meta');
    expect(h.transferSyntaxUid).toBe('1.2.840.10008.1.2.2');
    const { ours, theirs } = await ourAndPydicoms('be-no-meta');
    expect(differing(ours, theirs)).toBe(0);
    const { result } = await intake([file('be-no-meta')], { tempDir: join(out, 'work') });
    expect(result.series[0]!.transferSyntax.name).toBe('Explicit VR Big Endian');
    // pydicom's own big-endian file without meta header is an RT plan: now said to be one, not "not DICOM".
    const plan = classifyFile({ path: file('ExplVR_BigEndNoMeta'), display: 'ExplVR_BigEndNoMeta.dcm' });
    expect(plan).toEqual({ kind: 'skip', reason: 'a radiotherapy plan, not an image' });
  });

  it('decodes JPEG 2000 whose codestream holds the bytes of a sequence delimiter', async () => {
    const { ours, theirs } = await ourAndPydicoms('j2k-delimiter-in-comment');
    expect(differing(ours, theirs)).toBe(0);
  });

  it('refuses in words, before decoding, a JPEG 2000 frame whose size header a delimiter overwrote', async () => {
    // As pydicom's JPEG2000-embedded-sequence-delimiter.dcm: the DICOM structure is valid (the file
    // is listed as an image), the codestream claims 3.7 billion columns (pydicom cannot decode it either).
    const h = header('j2k-delimiter-in-siz');
    expect([h.rows, h.columns]).toEqual([384, 384]);
    const err = await readVolume([file('j2k-delimiter-in-siz')]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).message).toBe(
      'The images in j2k-delimiter-in-siz.dcm cannot be read: its compressed image does not have the size its header gives (the image data is damaged).',
    );
  });

  it('decodes lossy JPEG baseline as pydicom (with Pillow) does', async () => {
    const { ours, theirs } = await ourAndPydicoms('jpeg-baseline');
    expect(differing(ours, theirs)).toBe(0);
    const { result } = await intake([file('jpeg-baseline')], { tempDir: join(out, 'work') });
    const said = result.series[0]!.problems;
    expect(said.find((p) => p.code === 'compressed')?.message).toMatch(
      /JPEG Baseline \(lossy\)\)\. That is fine/,
    );
    expect(said.map((p) => p.code)).toContain('lossy-compression');
  });

  it('says a 12-bit lossy JPEG cannot be decoded, in words', async () => {
    const { copyClaimingSyntax } = await import('./scans.test-support.js');
    // A 16-bit codestream in a file that says JPEG Extended: the precision is read before any decoder runs.
    const odd = copyClaimingSyntax(
      join(FIXTURES, 'transfer-syntax', 'mr-ts-j2k-lossless.dcm'),
      join(out, 'extended.dcm'),
    );
    const err = (await readVolume([odd]).catch((e: unknown) => e)) as AppError;
    expect(err.message).toBe(
      'The images in extended.dcm cannot be read: its pixels are compressed as JPEG Extended (lossy) with more than 8 bits per sample, which scan2mesh cannot decode.',
    );
  });

  it("reads pydicom's own YBR_FULL_422 file as the luminance pydicom reads", async () => {
    const { ours, theirs } = await ourAndPydicoms('SC_ybr_full_422_uncompressed');
    expect(differing(ours, theirs)).toBe(0);
  });

  it("refuses pydicom's JPEG2000-embedded-sequence-delimiter.dcm in words, its structure read", async () => {
    // pydicom-data: "4 of the encoded pixel data bytes replaced with the Sequence Delimiter ... almost
    // certainly not a valid JPEG anymore, but the DICOM structure is valid". Pillow calls it a bomb.
    const h = header('JPEG2000-embedded-sequence-delimiter');
    expect([h.rows, h.columns, h.numberOfFrames]).toEqual([1024, 256, 1]);
    const parsed = await readDicomFile(file('JPEG2000-embedded-sequence-delimiter'));
    // dicom-parser walks the items by their lengths: one fragment, not cut at the embedded delimiter.
    expect(parsed.dataSet.elements.x7fe00010!.fragments).toHaveLength(1);
    const err = (await readVolume([file('JPEG2000-embedded-sequence-delimiter')]).catch(
      (e: unknown) => e,
    )) as AppError;
    expect(err.message).toMatch(/does not have the size its header gives \(the image data is damaged\)\.$/);
  });

  it("says pydicom's 12-bit JPEG-lossy.dcm cannot be decoded, in words", async () => {
    const err = (await readVolume([file('JPEG-lossy')]).catch((e: unknown) => e)) as AppError;
    expect(err).toBeInstanceOf(AppError);
    expect(err.message).toBe(
      'The images in JPEG-lossy.dcm cannot be read: its pixels are compressed as JPEG Extended (lossy) with more than 8 bits per sample, which scan2mesh cannot decode.',
    );
  });

  it('refuses a compressed frame cut short before any decoder runs (JPEG-LS spun for tens of seconds on one)', async () => {
    // The real fixtures' single frames, cut to 300 bytes and to half their length by pydicom.
    const cut = ['ct-512-jpegls-lossless', 'nm-jpeg-lossless-p14', 'mr-ts-j2k-lossless'];
    const files = damagedCopies(
      cut,
      'yield from ((f"cut{keep}", frame[:keep]) for keep in (300, len(frame) // 2))',
    );
    expect(files).toHaveLength(6);
    for (const f of files)
      expect(await refusal(f)).toMatch(
        /its compressed image is cut short \(its codestream has no end marker\)/,
      );
  });

  it('refuses a lossless frame cut short, lost to zeros or with a run header changed, which decoders passed as whole', async () => {
    // A review's cases on the real fixtures' frames: cut at half with the end marker put back, and
    // the coded data from its second quarter on set to zeros (the headers and the end marker kept).
    // JPEG Lossless returned an image decoded from bytes past its end, or from a third of its data;
    // OpenJPEG said "Tile part length size inconsistent" and returned a partly decoded image (its
    // zeros decode without a word: slice-likeness.ts finds those among their neighbours).
    const damaged = ['nm-jpeg-lossless-p14', 'mr-ts-jpeg-lossless-sv1', 'mr-ts-j2k-lossless'];
    const files = damagedCopies(
      damaged,
      String.raw`end = frame.rindex(b'\xff\xd9')
    yield 'cut', frame[:len(frame) // 2] + b'\xff\xd9'
    if not name.startswith('mr-ts-j2k'):
        yield 'zeros', frame[:len(frame) // 4] + bytes(end - len(frame) // 4) + frame[end:]`,
    );
    expect(files).toHaveLength(5);
    // The cut JPEG 2000 frame is refused before OpenJPEG runs: its tile-part overruns its end.
    for (const f of files)
      expect(await refusal(f), f).toMatch(
        /its compressed pixels cannot be decoded \(the image data is damaged|tile-part lengths do not add up to the codestream .*the image data is damaged/,
      );
    // RLE: one run header of the low bytes' segment, past its middle, turned from a literal run into
    // a repeat: the rest of the segment decodes into other runs, past the frame's end (the frame was
    // filled and the rest left unread: half the image wrong without a word).
    const [flipped] = damagedCopies(
      ['mr-ts-rle'],
      String.raw`import struct
    count = struct.unpack('<I', frame[:4])[0]
    start = struct.unpack('<15I', frame[4:64])[count - 1]
    i, middle = start, start + (len(frame) - start) // 2
    while not (i > middle and 4 < frame[i] < 128):
        h = frame[i]
        i += 1 + (h + 1 if h < 128 else 1 if h > 128 else 0)
    b = bytearray(frame); b[i] = 0x81
    yield 'flipped', bytes(b)`,
    );
    expect(await refusal(flipped!)).toMatch(
      /its compressed pixels cannot be decoded \(the image data is damaged/,
    );
    // The whole frames still decode.
    for (const name of [...damaged, 'mr-ts-rle'])
      await expect(readVolume([join(FIXTURES, 'transfer-syntax', `${name}.dcm`)])).resolves.toBeDefined();
  });
});

/**
 * Copies of the transfer-syntax fixtures `names` whose first frame is replaced, by pydicom, with each
 * (label, bytes) that `damage` yields (Python statements on `name` and `frame`, indented by 4).
 */
function damagedCopies(names: string[], damage: string): string[] {
  const made = spawnSync(
    '/usr/bin/python3',
    [
      '-c',
      String.raw`
import sys, json, os, pydicom
from pydicom.encaps import generate_pixel_data_frame, encapsulate
src, out = sys.argv[1], sys.argv[2]; files = []
def damaged(name, frame):
    ${damage}
for name in sys.argv[3:]:
    ds = pydicom.dcmread(os.path.join(src, name + '.dcm'))
    frame = next(generate_pixel_data_frame(ds.PixelData, int(ds.get("NumberOfFrames", 1) or 1)))
    for label, data in damaged(name, frame):
        ds.PixelData = encapsulate([data])
        to = os.path.join(out, '%s-%s.dcm' % (name, label)); ds.save_as(to); files.append(to)
print(json.dumps(files))`,
      join(FIXTURES, 'transfer-syntax'),
      out,
      ...names,
    ],
    { encoding: 'utf8' },
  );
  expect(made.status, made.stderr).toBe(0);
  return JSON.parse(made.stdout.trim()) as string[];
}

/** Why reading `file` as a volume fails (it must), in words. */
async function refusal(file: string): Promise<string> {
  await prepareCodec((await readDicomFile(file)).transferSyntaxUid);
  const err = (await readVolume([file]).catch((e: unknown) => e)) as AppError;
  expect(err).toBeInstanceOf(AppError);
  return err.message;
}

describe('JPEG Lossless with restart markers', () => {
  it('is refused in words: its decoder reads the last value before each restart wrongly', async () => {
    // The real MR's JPEG Lossless frame with a restart interval declared (DRI) before its scan: the
    // decoder (jpeg-lossless-decoder-js) was up to 7 off at each restart of a review's valid files.
    const [withRestarts] = damagedCopies(
      ['mr-ts-jpeg-lossless-sv1'],
      String.raw`sos = frame.index(b'\xff\xda')
    yield 'dri', frame[:sos] + b'\xff\xdd\x00\x04\x01\x00' + frame[sos:]`,
    );
    expect(await refusal(withRestarts!)).toMatch(
      /its pixels are compressed as JPEG Lossless \(first-order prediction\) with restart markers, which scan2mesh cannot decode exactly/,
    );
  });
});

describe('JPEG Lossless whose last code reaches into its end marker', () => {
  it('decodes to exactly the values of the uncompressed slice (it was one value short, then refused)', async () => {
    // A real head slice that dcmtk compressed (src-main/scans/testdata/README.md).
    const jpeg = join(import.meta.dirname, 'testdata', 'cranium-slice019-jpeg-lossless-dcmtk.dcm');
    const plain = join(FIXTURES, 'ct-human-cranium-teeth', 'slice019.dcm');
    const [a, b] = await Promise.all([readVolume([jpeg]), readVolume([plain])]);
    expect(Buffer.from(a.data.buffer).equals(Buffer.from(b.data.buffer))).toBe(true);
  });
});
