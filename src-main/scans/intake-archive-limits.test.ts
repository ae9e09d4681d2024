// Archives that unpack to far more than a scan could, archives of thousands of files that are not
// DICOM, and archives scan2mesh cannot read (encrypted, other compressions, tar): each refused or
// skipped in words, before their content is written out.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ArchiveRefused, extractGzip } from './archive-extract.js';
import { intake } from './intake.js';
import { phantomFiles, tempFolders } from './scans.test-support.js';
import { dicomThenZeros, STRICT, writeZip } from './zip.test-support.js';

const { fresh } = tempFolders('s2m-archive-limits-');

/** Every file (not folder) under the intake's work folders, with its size. */
function written(tempDirs: string[]): { name: string; size: number }[] {
  return tempDirs.flatMap((d) =>
    (readdirSync(d, { recursive: true }) as string[])
      .map((f) => ({ name: f, path: join(d, f) }))
      .filter((f) => statSync(f.path).isFile())
      .map((f) => ({ name: f.name, size: statSync(f.path).size })),
  );
}

const totalSize = (files: { size: number }[]): number => files.reduce((s, f) => s + f.size, 0);

/** Sets bits of every entry's general-purpose flags, or its compression method, in place. */
function patchEntries(zipPath: string, patch: { flags?: number; method?: number }): void {
  const bytes = readFileSync(zipPath);
  // Local headers (PK\3\4) keep flags at 6 and method at 8; central ones (PK\1\2), at 8 and 10.
  for (const [sig, flagsAt] of [
    [[0x50, 0x4b, 0x03, 0x04], 6],
    [[0x50, 0x4b, 0x01, 0x02], 8],
  ] as const) {
    for (let at = bytes.indexOf(Buffer.from(sig)); at >= 0; at = bytes.indexOf(Buffer.from(sig), at + 4)) {
      if (patch.flags) bytes.writeUInt16LE(bytes.readUInt16LE(at + flagsAt) | patch.flags, at + flagsAt);
      if (patch.method !== undefined) bytes.writeUInt16LE(patch.method, at + flagsAt + 2);
    }
  }
  writeFileSync(zipPath, bytes);
}

describe('archives that unpack to far more than a scan could', () => {
  it('refuses a zip whose DICOM-looking file inflates past the ratio, before writing anything', async () => {
    const zip = join(fresh('bomb'), 'bomb.zip');
    await writeZip(zip, [{ name: 'slice.dcm', data: dicomThenZeros(4e6) }]);
    const outcome = await intake([zip], { tempDir: fresh('work'), limits: STRICT });
    expect(outcome.result.problems[0]).toMatchObject({ code: 'archive-refused', file: zip });
    expect(outcome.result.problems[0]!.message).toMatch(
      /^The archive bomb\.zip was not opened: one of its files says it unpacks to 3\.8 MiB from [\d.]+ KiB, far more than a scan could \(a damaged or hostile archive\)\.$/,
    );
    expect(written(outcome.tempDirs)).toEqual([]);
  });

  it('refuses a zip whose files, each small, add up to far more than its size', async () => {
    const zip = join(fresh('many-small'), 'small-bombs.zip');
    // Each 0.9 MB, under the 1 MB below which any ratio passes; together 9 MB from some 10 KB.
    await writeZip(
      zip,
      Array.from({ length: 10 }, (_, i) => ({ name: `s${i}.dcm`, data: dicomThenZeros(0.9e6) })),
    );
    const outcome = await intake([zip], { tempDir: fresh('work'), limits: STRICT });
    expect(outcome.result.problems[0]!.message).toMatch(
      /was not opened: it says it unpacks to 8\.6 MiB from [\d.]+ [KM]iB, far more than a scan could/,
    );
    expect(written(outcome.tempDirs)).toEqual([]);
  });

  it('still opens a deflated series under those limits', async () => {
    const zip = join(fresh('series'), 'series.zip');
    const slices = phantomFiles().slice(0, 4);
    await writeZip(
      zip,
      slices.map((f) => ({ name: `export/${basename(f)}`, data: readFileSync(f) })),
    );
    const { result } = await intake([zip], { tempDir: fresh('work'), limits: STRICT });
    expect(result.series.map((s) => s.slices)).toEqual([4]);
  });

  it('stops a gzip of DICOM-looking bytes once it inflates past the ratio, and keeps nothing of it', async () => {
    const dir = fresh('gz-bomb');
    const gz = join(dir, 'slice.dcm.gz');
    writeFileSync(gz, gzipSync(dicomThenZeros(30e6), { level: 1 }));
    const out = join(dir, 'out', 'slice.dcm');
    const err = await extractGzip(gz, out, { limits: STRICT }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArchiveRefused);
    expect((err as Error).message).toBe(
      'it unpacks to more than 20 times its size, far more than a scan could (a damaged or hostile archive)',
    );
    expect(existsSync(out)).toBe(false);
  });
});

describe('archive entries that are not DICOM', () => {
  it('keeps only the first bytes of what is not DICOM, and still says what each file is', async () => {
    const zip = join(fresh('mixed'), 'mixed.zip');
    const slices = phantomFiles().slice(0, 3);
    await writeZip(zip, [
      ...slices.map((f) => ({ name: `DICOM/${basename(f)}`, file: f })),
      { name: 'README.TXT', data: Buffer.alloc(2e6, 'read me. ') },
      { name: 'zeros.dcm', data: Buffer.alloc(8e6) },
      { name: 'empty.dcm', data: Buffer.alloc(0) },
    ]);
    const outcome = await intake([zip], { tempDir: fresh('work') });
    expect(outcome.result.series.map((s) => s.slices)).toEqual([3]);
    expect(outcome.result.skipped).toEqual([
      { path: `${zip}/README.TXT`, reason: 'a text file, not DICOM' },
      { path: `${zip}/zeros.dcm`, reason: 'not a DICOM file (its content is not DICOM, whatever its name)' },
    ]);
    // An empty file named as a DICOM file is a slice cut off to nothing: damaged, said by the series
    // beside it (not here: the slices lie in DICOM/).
    expect(outcome.result.problems.map((p) => [p.file, p.code])).toContainEqual([
      `${zip}/empty.dcm`,
      'corrupt-file',
    ]);
    expect(outcome.result.series[0]!.problems.map((p) => p.code)).not.toContain('damaged-files');
    // The slices in full, in the archive's folder itself (no folder per entry); of the other files
    // 512 bytes each at most, not their 10 MB.
    const files = written(outcome.tempDirs);
    const sliceBytes = totalSize(slices.map((f) => statSync(f)));
    expect(files.filter((f) => slices.some((s) => f.name === join('a0', basename(s))))).toHaveLength(3);
    expect(totalSize(files)).toBeLessThanOrEqual(sliceBytes + 2 * 512);
  });

  it('reads a zip of thousands of tiny files without a file or folder for each', async () => {
    const zip = join(fresh('many'), 'many.zip');
    await writeZip(
      zip,
      Array.from({ length: 1000 }, (_, i) => ({ name: `notes/n${i}`, data: Buffer.from('x') })),
    );
    const outcome = await intake([zip], { tempDir: fresh('work') });
    expect(outcome.result.skipped).toHaveLength(1000);
    expect(new Set(outcome.result.skipped.map((s) => s.reason))).toEqual(new Set(['a text file, not DICOM']));
    // Entries that start alike share the one copy of their start: the classifier tells them apart by name.
    expect(written(outcome.tempDirs)).toHaveLength(1);
  });

  it('keeps entries of the same name apart', async () => {
    const zip = join(fresh('same-names'), 'two-discs.zip');
    const [a, b] = phantomFiles();
    await writeZip(zip, [
      { name: 'disc1/IMG0001', file: a! },
      { name: 'disc2/IMG0001', file: b! },
      { name: 'disc2/img0001', file: phantomFiles()[2]! },
    ]);
    const { result } = await intake([zip], { tempDir: fresh('work') });
    expect(result.series.map((s) => s.slices)).toEqual([3]);
  });
});

describe('archives scan2mesh cannot read, said in words', () => {
  it('says a password-protected zip is encrypted and must be unzipped first', async () => {
    const zip = join(fresh('encrypted'), 'locked.zip');
    await writeZip(zip, [{ name: 'slice.dcm', data: readFileSync(phantomFiles()[0]!) }]);
    patchEntries(zip, { flags: 0x1 });
    const { result } = await intake([zip], { tempDir: fresh('work') });
    expect(result.problems[0]!.message).toBe(
      'The archive locked.zip was not opened: it is protected by a password (encrypted), which scan2mesh cannot open: unzip it with its password and drop the folder.',
    );
  });

  it('says a zip packed with a compression it cannot read is so', async () => {
    const zip = join(fresh('bzip2'), 'bzip2.zip');
    await writeZip(zip, [{ name: 'slice.dcm', data: readFileSync(phantomFiles()[0]!) }]);
    patchEntries(zip, { method: 12 }); // bzip2
    const { result } = await intake([zip], { tempDir: fresh('work') });
    expect(result.problems[0]!.message).toMatch(
      /was not opened: it is packed with a kind of compression scan2mesh cannot read: unzip it and drop the folder/,
    );
  });

  it.skipIf(spawnSync('tar', ['--version']).status !== 0)(
    'says a tar archive, gzipped or not, is not read, and to use the folder or a zip',
    async () => {
      const dir = fresh('tar');
      copyFileSync(phantomFiles()[0]!, join(dir, 'slice.dcm'));
      expect(spawnSync('tar', ['-czf', 'series.tar.gz', 'slice.dcm'], { cwd: dir }).status).toBe(0);
      expect(spawnSync('tar', ['-cf', 'series.tar', 'slice.dcm'], { cwd: dir }).status).toBe(0);
      const outcome = await intake([join(dir, 'series.tar.gz'), join(dir, 'series.tar')], {
        tempDir: fresh('work'),
      });
      const why = 'a tar archive, which scan2mesh does not read: drop the folder itself, or a zip of it';
      expect(outcome.result.skipped).toEqual([
        { path: join(dir, 'series.tar'), reason: why },
        { path: `${join(dir, 'series.tar.gz')} (unpacked)`, reason: why },
      ]);
      // Of the gzipped tar only its first bytes were written out.
      expect(totalSize(written(outcome.tempDirs))).toBeLessThanOrEqual(512);
    },
  );

  it('says to drop the folder that holds a DICOMDIR dropped alone', async () => {
    const { result } = await intake([join(phantomFiles()[0]!, '..', '..', 'dicomdir', 'DICOMDIR')], {
      tempDir: fresh('work'),
    });
    expect(result.skipped.map((s) => s.reason)).toEqual([
      'a DICOMDIR index: it lists the images of a disc but holds none; to read them, drop the folder that holds the DICOMDIR',
    ]);
  });
});
