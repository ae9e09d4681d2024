import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import dicomParser from 'dicom-parser';
import { describe, expect, it } from 'vitest';
import type { IntakeResult, SeriesSummary } from '../../src-shared/scans.js';
import { AppError } from '../../src-shared/errors.js';
import { intake } from './intake.js';
import { readVolume } from './volume-reader.js';
import {
  FIXTURES,
  PHANTOM_DIR,
  copyClaimingSyntax,
  patchElement,
  phantomBySlice,
  phantomFiles,
  pydicomMissing,
  python,
  sameLength,
  tempFolders,
} from './scans.test-support.js';
import { writeZip } from './zip.test-support.js';

const { fresh } = tempFolders('s2m-intake-');

async function run(paths: string[]): Promise<IntakeResult> {
  return (await intake(paths, { tempDir: fresh('work') })).result;
}

/** A copy of the phantom folder that tests may change. */
function phantomCopy(name: string): { dir: string; files: string[] } {
  const dir = fresh(name);
  const files = phantomFiles().map((f) => {
    const to = join(dir, basename(f));
    copyFileSync(f, to);
    return to;
  });
  return { dir, files };
}

const codes = (s: SeriesSummary | IntakeResult): string[] => s.problems.map((p) => p.code);

describe('intake of the real fixtures', () => {
  it('describes the phantom series from its headers', async () => {
    const r = await run([PHANTOM_DIR]);
    expect(r.series).toHaveLength(1);
    const s = r.series[0]!;
    expect(s).toMatchObject({
      patient: { name: 'HEAD', id: 'PLASTIC', birthDate: '' },
      study: { date: '20150206', description: '1A TRAUMA/PLAIN HEAD DM' },
      seriesDescription: 'BONE BRAIN 1MM',
      seriesNumber: 203,
      modality: 'CT',
      manufacturer: 'Philips',
      rows: 512,
      columns: 512,
      slices: 140,
      bitsAllocated: 16,
      bitsStored: 12,
      transferSyntax: { uid: '1.2.840.10008.1.2.1', compressed: false },
      multiFrame: false,
      fileCount: 140,
      previewable: true,
      orientation: { plane: 'axial' },
    });
    expect(s.sliceSpacing).toBeCloseTo(1, 6);
    expect(s.totalBytes).toBe(phantomFiles().reduce((t, f) => t + readFileSync(f).length, 0));
    expect(s.problems).toEqual([]);
    expect(r.problems).toEqual([]);
    // The id is stable: the same files give the same id.
    expect((await run([PHANTOM_DIR])).series[0]!.id).toBe(s.id);
  });

  const noPydicom = pydicomMissing();
  it.skipIf(noPydicom !== null)(
    `matches pydicom's geometry for every consistent fixture series${noPydicom ? ` (skipped: ${noPydicom})` : ''}`,
    async () => {
      const drop = [
        PHANTOM_DIR,
        join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm'),
        join(FIXTURES, 'mr'),
        join(FIXTURES, 'dicomdir'),
      ];
      const outcome = await intake(drop, { tempDir: fresh('work') });
      // Series whose geometry is undefined (mixed planes, no orientation or positions) have nothing to compare.
      const comparable = outcome.series.filter(
        (s) =>
          !codes(s.summary).some((c) => ['mixed-orientations', 'no-positions', 'no-orientation'].includes(c)),
      );
      expect(comparable.length).toBeGreaterThanOrEqual(6);
      const groups = comparable.map((s) => ({ id: s.summary.id, files: s.headers.map((h) => h.path) }));
      const ref = python<
        Record<
          string,
          {
            rows: number;
            columns: number;
            slices: number;
            pixelSpacing: number[];
            orientation: number[];
            origin: number[];
            sliceSpacing: number | null;
            seriesUid: string;
            bits: number[];
          }
        >
      >(
        String.raw`
import sys, json, pydicom, numpy as np
out = {}
for g in json.loads(sys.stdin.read()):
    dss = [pydicom.dcmread(f, stop_before_pixels=True) for f in g['files']]
    d0 = dss[0]
    if int(getattr(d0, 'NumberOfFrames', 1) or 1) > 1 and 'PerFrameFunctionalGroupsSequence' in d0:
        sh = d0.SharedFunctionalGroupsSequence[0]
        ori = [float(v) for v in sh.PlaneOrientationSequence[0].ImageOrientationPatient]
        ps = [float(v) for v in sh.PixelMeasuresSequence[0].PixelSpacing]
        pos = [[float(v) for v in f.PlanePositionSequence[0].ImagePositionPatient] for f in d0.PerFrameFunctionalGroupsSequence]
    else:
        ori = [float(v) for v in d0.ImageOrientationPatient]; ps = [float(v) for v in d0.PixelSpacing]
        pos = [[float(v) for v in d.ImagePositionPatient] for d in dss]
    n = np.cross(ori[:3], ori[3:]); n = n / np.linalg.norm(n)
    along = sorted(float(np.dot(p, n)) for p in pos)
    first = min(pos, key=lambda p: float(np.dot(p, n)))
    gaps = np.diff(along)
    out[g['id']] = {'rows': int(d0.Rows), 'columns': int(d0.Columns), 'slices': len(pos), 'pixelSpacing': ps,
      'orientation': ori, 'origin': first, 'sliceSpacing': float(np.median(gaps)) if len(gaps) else None,
      'seriesUid': str(d0.SeriesInstanceUID), 'bits': [int(d0.BitsAllocated), int(d0.BitsStored)]}
print(json.dumps(out))
`,
        [],
        JSON.stringify(groups),
      );
      for (const s of comparable.map((c) => c.summary)) {
        const r = ref[s.id]!;
        expect({
          rows: s.rows,
          columns: s.columns,
          slices: s.slices,
          seriesUid: s.seriesUid,
          bits: [s.bitsAllocated, s.bitsStored],
        }).toEqual({
          rows: r.rows,
          columns: r.columns,
          slices: r.slices,
          seriesUid: r.seriesUid,
          bits: r.bits,
        });
        s.pixelSpacing.forEach((v, i) => expect(v).toBeCloseTo(r.pixelSpacing[i]!, 9));
        s.orientation.cosines.forEach((v, i) => expect(v).toBeCloseTo(r.orientation[i]!, 9));
        s.origin.forEach((v, i) => expect(v).toBeCloseTo(r.origin[i]!, 6));
        if (r.sliceSpacing !== null) expect(s.sliceSpacing).toBeCloseTo(r.sliceSpacing, 6);
      }
    },
  );

  it('takes a multi-frame file as one volume, and says what is compressed', async () => {
    const r = await run([join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-rle.dcm')]);
    const s = r.series[0]!;
    expect(s).toMatchObject({
      multiFrame: true,
      slices: 2,
      fileCount: 1,
      transferSyntax: { name: 'RLE Lossless', compressed: true },
    });
    expect(s.sliceSpacing).toBeCloseTo(10, 6);
    expect(codes(s)).toContain('compressed');
    expect(s.previewable).toBe(true);
    const j2k = (await run([join(FIXTURES, 'transfer-syntax', 'mr-ts-j2k-lossless.dcm')])).series[0]!;
    expect(j2k.problems.find((p) => p.code === 'compressed')?.message).toMatch(
      /JPEG 2000 Lossless.*That is fine/,
    );
    const odd = copyClaimingSyntax(
      join(FIXTURES, 'transfer-syntax', 'mr-ts-j2k-lossless.dcm'),
      join(fresh('ext'), 'x.dcm'),
    );
    const ext = (await run([odd])).series[0]!;
    expect(ext.problems.find((p) => p.code === 'compressed')?.message).toMatch(
      /JPEG Extended \(lossy\).*uploaded as they are.*cannot show a preview/,
    );
    expect(codes(ext)).toContain('lossy-compression');
    expect(ext.previewable).toBe(false);
  });

  it('skips what is not an image, saying what it is', async () => {
    const r = await run([join(FIXTURES, 'dicomdir', 'DICOMDIR'), join(FIXTURES, 'bad')]);
    const reason = (name: string): string | undefined => r.skipped.find((s) => s.path.endsWith(name))?.reason;
    expect(reason('DICOMDIR')).toMatch(/DICOMDIR index/);
    expect(reason('rtplan-no-pixeldata.dcm')).toMatch(/radiotherapy plan/);
    expect(reason('structured-report-no-pixeldata.dcm')).toMatch(/structured report/);
    // Found by content although it has no preamble and no meta header.
    expect(reason('explicit-le-no-preamble-no-meta.dcm')).toMatch(/radiotherapy plan/);
    expect(reason('ct-no-preamble-no-meta.dcm')).toMatch(/not a DICOM file/);
    // The gzipped MR was unpacked and is the complete copy of the image whose other copy is cut off.
    const mr = r.series.find((s) => s.modality === 'MR')!;
    expect(codes(mr)).toContain('duplicate-files');
    expect(codes(mr)).not.toContain('truncated-file');
    expect(codes(mr)).toContain('not-ct');
    const rgb = r.series.find((s) => s.modality === 'OT')!;
    expect(codes(rgb)).toContain('colour-image');
  });
});

describe('intake of a mixed drop', () => {
  it('accepts a folder, a zip, a gzipped file and a multi-frame file together, and lets the user choose', async () => {
    const zipDir = fresh('zips');
    const zip = join(zipDir, 'phantom.zip');
    await writeZip(
      zip,
      phantomFiles().map((f) => ({ name: `export/CT/${basename(f)}`, file: f })),
    );
    const gz = join(zipDir, 'mr.dcm.gz');
    writeFileSync(gz, gzipSync(readFileSync(join(FIXTURES, 'mr', 'mr-siemens-trio-explicit-le.dcm'))));
    const renamed = join(zipDir, 'slice.jpg'); // a DICOM file with a misleading name
    copyFileSync(phantomFiles()[3]!, renamed);
    const r = await run([
      zip,
      gz,
      join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm'),
      join(FIXTURES, 'ct-human-cranium-teeth'),
      renamed,
    ]);
    const ct = r.series.find((s) => s.slices === 140)!;
    expect(ct.fileCount).toBe(140); // the renamed copy is the same image, counted once
    expect(codes(ct)).toEqual(['duplicate-files']);
    expect(r.series.find((s) => s.multiFrame)?.slices).toBe(2);
    expect(r.series.find((s) => s.modality === 'MR')).toBeDefined();
    // Two of the four series can be made into a model (the phantom and the cranium): the user chooses.
    // The 2-frame CT and the MR are readable but count for nothing, as the app would not send them.
    expect(r.problems.find((p) => p.code === 'several-series')?.message).toMatch(/holds 2 usable series/);
    // Problems name zip entries as the user knows them.
    const fromZip = await run([zip]);
    expect(fromZip.series[0]!.slices).toBe(140);
  });
});

describe('intake checks', () => {
  it('warns of missing slices and says where; a gap too wide to fill in makes the series unfit', async () => {
    const { files } = phantomCopy('gap');
    const ordered = phantomBySlice(files);
    for (const f of ordered.slice(60, 63)) rmSync(f);
    const s = (await run([join(files[0]!, '..')])).series[0]!;
    const p = s.problems.find((x) => x.code === 'gap-too-wide')!;
    expect(p.severity).toBe('warning');
    expect(p.message).toMatch(/between slice 60 and 61 \(753\.2 to 757\.2 mm\), a 4\.0 mm gap/);
    expect(s.previewable).toBe(true);
    expect(s.fitness.fit).toBe(false);
    expect(s.fitness.reasons.join(' ')).toMatch(/between slice 60 and 61 \(753\.2 to 757\.2 mm\)/);
    rmSync(ordered[80]!); // one more slice out elsewhere: a 2 mm gap, filled in
    const t = (await run([join(files[0]!, '..')])).series[0]!;
    expect(t.problems.find((x) => x.code === 'missing-slices')!.message).toMatch(
      /1 in all.*between slice 77 and 78 \(773\.2 to 775\.2 mm\), a 2\.0 mm gap: about 1 slice\b/,
    );
  });

  it('warns of uneven spacing and says where', async () => {
    const { files } = phantomCopy('uneven');
    const f = phantomBySlice(files)[70]!; // z = 764.21
    const bytes = readFileSync(f);
    patchElement(bytes, 'x00200032', sameLength(bytes, 'x00200032', '-115.5\\-1.85\\764.51'));
    writeFileSync(f, bytes);
    const s = (await run([join(f, '..')])).series[0]!;
    const p = s.problems.find((x) => x.code === 'uneven-spacing')!;
    expect(p.severity).toBe('warning');
    expect(p.message).toMatch(
      /between slice 70 and 71 \(763\.2 to 764\.5 mm\): 1\.30 mm; between slice 71 and 72 \(764\.5 to 765\.2 mm\): 0\.70 mm/,
    );
  });

  it('reports mixed sizes and mixed orientations in one series as errors naming a file', async () => {
    const { files } = phantomCopy('mixed');
    const [a, b] = phantomBySlice(files).slice(10, 12) as [string, string];
    const bytesA = readFileSync(a);
    patchElement(bytesA, 'x00280010', Buffer.from([0, 1])); // Rows 512 -> 256
    // Its pixel data cut to the 256 rows it now says it has: with two images' worth it is damaged.
    const px = dicomParser.parseDicom(bytesA, { untilTag: 'x7fe00010' }).elements.x7fe00010!;
    bytesA.writeUInt32LE(px.length / 2, px.dataOffset - 4);
    writeFileSync(a, bytesA.subarray(0, px.dataOffset + px.length / 2));
    const bytesB = readFileSync(b);
    patchElement(bytesB, 'x00200037', sameLength(bytesB, 'x00200037', '1\\0\\0\\0\\0\\-1'));
    writeFileSync(b, bytesB);
    const s = (await run([join(a, '..')])).series[0]!;
    expect(s.problems.find((p) => p.code === 'mixed-sizes')).toMatchObject({ severity: 'error', file: a });
    expect(s.problems.find((p) => p.code === 'mixed-sizes')!.message).toMatch(/512x512, 512x256/);
    expect(s.problems.find((p) => p.code === 'mixed-orientations')).toMatchObject({
      severity: 'error',
      file: b,
    });
    expect(s.previewable).toBe(false);
  });

  it('reads slices without preamble or meta header among the others', async () => {
    const dir = fresh('raw');
    for (const f of phantomBySlice(phantomFiles()).slice(0, 12)) {
      // Strip preamble, 'DICM' and the meta group: what is left is the bare data set.
      const bytes = readFileSync(f);
      const metaLength = bytes.readUInt32LE(140); // (0002,0000) value
      writeFileSync(join(dir, basename(f)), bytes.subarray(144 + metaLength));
    }
    const s = (await run([dir])).series[0]!;
    expect(s.slices).toBe(12);
    expect(s.modality).toBe('CT');
    expect(codes(s)).toEqual([]);
  });
});

describe('intake of bad and hostile input', () => {
  it('gives each bad file a clear reason, without crashing', async () => {
    const dir = fresh('bad-corpus');
    const slice = readFileSync(phantomFiles()[0]!);
    writeFileSync(join(dir, 'cut-in-pixels.dcm'), slice.subarray(0, Math.floor(slice.length * 0.6)));
    writeFileSync(join(dir, 'cut-in-header'), slice.subarray(0, 3000));
    writeFileSync(join(dir, 'random.bin'), randomBytes(70_000));
    writeFileSync(join(dir, 'notes.txt'), 'Patient to be rescanned next week.\n');
    writeFileSync(join(dir, 'Thumbs.db'), randomBytes(512));
    writeFileSync(join(dir, 'empty'), '');
    copyFileSync(join(FIXTURES, 'bad', 'structured-report-no-pixeldata.dcm'), join(dir, 'report'));
    const r = await run([dir, join(dir, 'does-not-exist')]);
    const reasons = Object.fromEntries(r.skipped.map((s) => [basename(s.path), s.reason]));
    expect(reasons).toMatchObject({
      'random.bin': expect.stringMatching(/not a DICOM file/),
      'notes.txt': expect.stringMatching(/text file/),
      'Thumbs.db': expect.stringMatching(/thumbnail cache/),
      empty: 'an empty file',
      report: expect.stringMatching(/structured report/),
    });
    const problem = (file: string) => r.problems.find((p) => p.file?.endsWith(file));
    expect(problem('cut-in-header')).toMatchObject({ severity: 'error', code: 'corrupt-file' });
    expect(problem('cut-in-header')!.message).toMatch(/^cut-in-header is a damaged or incomplete DICOM file/);
    expect(problem('does-not-exist')).toMatchObject({ severity: 'error', code: 'unreadable' });
    const cut = r.series[0]!;
    expect(cut.problems[0]).toMatchObject({ severity: 'error', code: 'truncated-file' });
    expect(cut.problems[0]!.message).toMatch(/cut-in-pixels\.dcm is incomplete/);
    expect(codes(r)).toContain('nothing-usable');
  });

  it('survives files with damaged headers: every one is accounted for, nothing throws or hangs', async () => {
    const dir = fresh('fuzz');
    const source = readFileSync(phantomFiles()[0]!);
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let f = 0; f < 120; f++) {
      const bytes = Buffer.from(source);
      // Damage the header only (the first 7.6 KB), where lengths and VRs live.
      for (let k = 0; k < 1 + (f % 12); k++) bytes[132 + rand(7400)] = rand(256);
      writeFileSync(join(dir, `f${f}`), f % 5 === 0 ? bytes.subarray(0, 132 + rand(8000)) : bytes);
    }
    const r = await run([dir]);
    const seen =
      r.series.reduce((t, s) => t + s.fileCount, 0) +
      r.skipped.length +
      r.problems.filter((p) => p.file).length;
    // Copies counted once, and different images under one UID past the one kept: said by number.
    const counted = (code: string, re: RegExp, beyondKept: number): number =>
      r.series
        .flatMap((s) => s.problems.filter((p) => p.code === code))
        .reduce((t, p) => t + Number(re.exec(p.message)?.[1] ?? 0) - beyondKept, 0);
    const duplicates = counted('duplicate-files', /^(\d+) file/, 0);
    const conflicting = counted('duplicate-uid', /^(\d+) different images/, 1);
    // The copies of one slice, each damaged differently, are different images under its UID.
    expect(conflicting).toBeGreaterThan(0);
    expect(seen + duplicates + conflicting).toBe(120);
    // The volume reader refuses damaged series with a clear error rather than crashing.
    const outcome = await intake([dir], { tempDir: fresh('work') });
    for (const s of outcome.series.slice(0, 5)) {
      await readVolume(s.headers.map((h) => h.path)).catch((e: unknown) =>
        expect(e).toBeInstanceOf(AppError),
      );
    }
  });

  it('ends on symbolic link loops', async () => {
    const dir = fresh('loop');
    mkdirSync(join(dir, 'a', 'b'), { recursive: true });
    symlinkSync(join(dir, 'a'), join(dir, 'a', 'b', 'back-up'));
    symlinkSync(join(dir, 'a', 'b'), join(dir, 'a', 'sideways'));
    symlinkSync(join(dir, 'nowhere'), join(dir, 'a', 'dangling'));
    for (const f of phantomFiles().slice(0, 3)) copyFileSync(f, join(dir, 'a', 'b', basename(f)));
    const r = await run([dir]);
    expect(r.series[0]!.slices).toBe(3);
    expect(r.skipped).toEqual([
      { path: join(dir, 'a', 'dangling'), reason: 'a link to something that does not exist' },
    ]);
  });
});
