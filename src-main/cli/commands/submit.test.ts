import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import dicomParser from 'dicom-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { checkStructures, makeableNames } from '../../../src-shared/structure-check.js';
import { connectionCapabilities } from '../../app/structure-check.js';
import { createSegmentationProcessor } from '../../engine/segmentation/index.js';
import { ScanService } from '../../scans/scan-service.js';
import {
  FIXTURES,
  PHANTOM_DIR,
  patchElement,
  phantomBySlice,
  phantomFiles,
  sameLength,
} from '../../scans/scans.test-support.js';
import { runStatus } from './status.js';
import { JOB_MANIFEST } from '../../jobs/output-folder.js';

const project = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'scan2mesh-submit-cli-'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs the real command line from source on a data folder of its own, as a user would run it. */
function cli(dataDir: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(project, 'src-main', 'cli', 'cli.ts'), ...args],
    {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, SCAN2MESH_DATA_DIR: dataDir, SCAN2MESH_LOG_LEVEL: 'error' },
    },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The jobs in a data folder's queue, as `scan2mesh status --json` lists them. */
function queued(dataDir: string): unknown[] {
  let text = '';
  expect(runStatus({ json: true }, { dataDir, out: (t) => (text += t) })).toBe(0);
  return (JSON.parse(text) as { jobs: unknown[] }).jobs;
}

/** Every file under a folder, relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

// What the local engine makes is its own say (it changes as it learns): ask it, do not hard-code it.
const localCaps = connectionCapabilities('local-engine', createSegmentationProcessor());
const makeable = makeableNames(localCaps) ?? [];

describe('scan2mesh submit refuses what the connection cannot make, before any work', () => {
  it('exits 2 for --mesh femur on the local engine, with no job and no copy of the scan left', () => {
    const data = join(work, 'femur', 'data');
    const out = join(work, 'femur', 'out');
    const r = cli(data, 'submit', PHANTOM_DIR, '--mesh', 'femur', '--out', out);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/the local engine cannot make:\n {2}femur: Not a name the local engine knows/);
    expect(r.stderr).toMatch(/Nothing was submitted/);

    expect(queued(data)).toEqual([]);
    // Only the (empty) job database: no package, no copy of a slice, no output folder.
    expect(filesUnder(data).filter((f) => !f.startsWith('jobs.sqlite'))).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });

  it('names each refused structure with its reason and the ones it can make (--json)', () => {
    const refusedByEngine = localCaps.refused[0];
    const good = makeable[0];
    expect(good).toBeDefined();
    const data = join(work, 'mixed', 'data');
    const meshes = ['femur', ...(refusedByEngine ? [refusedByEngine.name] : [])];
    const r = cli(
      data,
      'submit',
      PHANTOM_DIR,
      '--mesh',
      `${good},femur`,
      ...meshes.slice(1).flatMap((m) => ['--mesh', m]),
      '--out',
      join(work, 'mixed', 'out'),
      '--json',
    );
    expect(r.status).toBe(2);
    const doc = JSON.parse(r.stdout) as {
      connection: string;
      refused: { name: string; reason: string }[];
      accepted: string[];
      jobs: unknown[];
    };
    expect(doc.connection).toBe('the local engine');
    expect(doc.refused.map((x) => x.name)).toEqual(meshes);
    // The reasons are the engine's own (its validation), as the app's panel shows them.
    const expected = checkStructures([good!, ...meshes], localCaps, { connectionName: 'the local engine' });
    expect(doc.refused).toEqual(expected.refused);
    expect(doc.accepted).toEqual([good]);
    expect(doc.jobs).toEqual([]);
    expect(r.stderr).toContain(`It can make: ${good}.`);
    for (const x of doc.refused) expect(r.stderr).toContain(`  ${x.name}: ${x.reason}`);
    expect(filesUnder(data).filter((f) => !f.startsWith('jobs.sqlite'))).toEqual([]);
  });

  it('exits 2 for a series no model can be made of (2 slices), printing why, before packing', async () => {
    const scan = join(work, 'two-slices');
    mkdirSync(scan);
    for (const f of phantomFiles().slice(0, 2)) copyFileSync(f, join(scan, basename(f)));
    // The reasons are the series summary's own, as `inspect` (and the app's card) shows them.
    const scans = new ScanService({ tempDir: join(work, 'scans-tmp') });
    const fitness = (await scans.intake([scan])).series[0]!.fitness;
    await scans.dispose();
    expect(fitness.fit).toBe(false);
    expect(fitness.reasons.length).toBeGreaterThan(0);

    const data = join(work, 'two-slices-data');
    const out = join(work, 'two-slices-out');
    const r = cli(data, 'submit', scan, '--mesh', makeable[0]!, '--out', out);
    expect(r.status).toBe(2);
    for (const reason of fitness.reasons) expect(r.stderr).toContain(reason);
    expect(r.stderr).toMatch(/Nothing was submitted/);
    expect(queued(data)).toEqual([]);
    expect(filesUnder(data).filter((f) => !f.startsWith('jobs.sqlite'))).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });

  it('exits 2 for teeth asked of slices too far apart for them, before packing', () => {
    // Every fifth slice of the real cranium, each 7.5 mm thick (as a thick-slice scan states it):
    // 7.5 mm apart, fit for a skull but not for teeth.
    const scan = join(work, 'cranium-every-fifth');
    mkdirSync(scan);
    const cranium = join(FIXTURES, 'ct-human-cranium-teeth');
    for (const f of phantomBySlice(readdirSync(cranium).map((n) => join(cranium, n))).filter(
      (_, i) => i % 5 === 0,
    )) {
      const bytes = readFileSync(f);
      patchElement(bytes, 'x00180050', sameLength(bytes, 'x00180050', '7.5'));
      writeFileSync(join(scan, basename(f)), bytes);
    }
    const data = join(work, 'cranium-every-fifth-data');
    const out = join(work, 'cranium-every-fifth-out');
    const r = cli(data, 'submit', scan, '--mesh', 'skull', '--mesh', 'all_teeth', '--out', out);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/all_teeth: The slices are 7\.5 mm apart in this scan/);
    expect(r.stderr).toMatch(/Nothing was submitted/);
    expect(queued(data)).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });
});

/** A copy of the 108-slice cranium CT whose slice050.dcm is cut off after `keep(bytes)` bytes. */
function craniumWithCutSlice(name: string, keep: (bytes: Buffer) => number): string {
  const dir = join(work, name);
  mkdirSync(dir);
  const cranium = join(FIXTURES, 'ct-human-cranium-teeth');
  for (const f of readdirSync(cranium)) copyFileSync(join(cranium, f), join(dir, f));
  const bytes = readFileSync(join(dir, 'slice050.dcm'));
  writeFileSync(join(dir, 'slice050.dcm'), bytes.subarray(0, keep(bytes)));
  return dir;
}

/** Where the value of a file's Series Instance UID ends. */
function seriesUidEnd(bytes: Buffer): number {
  const el = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' }).elements.x0020000e!;
  return el.dataOffset + el.length;
}

describe('scan2mesh submit leaves nothing out unseen', () => {
  it('refuses a series with a damaged slice that still names its series, saying which (exit 2)', () => {
    const scan = craniumWithCutSlice('damaged-named', (b) => seriesUidEnd(b) + 200);
    const data = join(work, 'damaged-named-data');
    const r = cli(data, 'submit', scan, '--mesh', makeable[0]!, '--out', join(work, 'damaged-named-out'));
    expect(r.status).toBe(2);
    // The file named by its whole path too, as inspect names it.
    expect(r.stderr).toContain(
      `1 file of this series is damaged: slice050.dcm (its header is cut off or has wrong lengths). The scan is not complete without it; export the series again. (${join(scan, 'slice050.dcm')})`,
    );
    expect(r.stderr).toMatch(/Nothing was submitted/);
    expect(queued(data)).toEqual([]);
  });

  it('refuses a series beside a damaged slice that no longer names its series (exit 2)', () => {
    // Cut inside the UID: which series the file was of is not known; it lies among this series'
    // files, so it may be one of its slices (sent without it, the gap was filled in).
    const scan = craniumWithCutSlice('damaged-beside', (b) => seriesUidEnd(b) - 30);
    const data = join(work, 'damaged-beside-data');
    const r = cli(data, 'submit', scan, '--mesh', makeable[0]!, '--out', join(work, 'damaged-beside-out'));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      "1 file beside this series' files is damaged, too much to tell which series it is of: slice050.dcm (its header is cut off or has wrong lengths).",
    );
    expect(queued(data)).toEqual([]);
  });

  it("prints the series' warnings and every file left out before it submits", () => {
    // The cut slice moved to a folder of its own: not beside the series, which is sent without it,
    // its gap filled in; the user is told both before anything is sent.
    const scan = craniumWithCutSlice('damaged-unnamed', (b) => seriesUidEnd(b) - 30);
    mkdirSync(join(scan, 'other'));
    renameSync(join(scan, 'slice050.dcm'), join(scan, 'other', 'slice050.dcm'));
    writeFileSync(join(scan, 'notes.txt'), 'Patient to be rescanned.\n');
    const mesh = makeable.includes('skull') ? 'skull' : makeable[0]!;
    const r = cli(
      join(work, 'unnamed-data'),
      'submit',
      scan,
      '--mesh',
      mesh,
      '--out',
      join(work, 'unnamed-out'),
    );
    expect(r.status).toBe(0);
    const sending = r.stderr.indexOf('Submitting 1 job');
    expect(sending).toBeGreaterThan(0);
    const told = r.stderr.slice(0, sending);
    expect(told).toContain(
      `${scan}: series "CRANIUM" is sent with this warning:\n  warning: Slices seem to be missing`,
    );
    expect(told).toContain(`${scan}: left out of what is sent:\n`);
    expect(told).toContain(
      `  error: slice050.dcm is a damaged or incomplete DICOM file and was left out (its header is cut off or has wrong lengths). (${join(scan, 'other', 'slice050.dcm')})\n`,
    );
    expect(told).toContain(`  skipped: ${join(scan, 'notes.txt')}: a text file, not DICOM\n`);
    // A patient's mesh, the folders made for it and the data folder are the user's alone, whatever
    // the umask (this process's is usually 022).
    const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);
    const out = join(work, 'unnamed-out');
    expect(mode(out)).toBe('700');
    expect(mode(join(work, 'unnamed-data'))).toBe('700');
    const folders = readdirSync(out);
    expect(folders).toHaveLength(1);
    expect(mode(join(out, folders[0]!))).toBe('700');
    const meshes = readdirSync(join(out, folders[0]!));
    expect(meshes.length).toBeGreaterThan(0);
    for (const m of meshes) expect(mode(join(out, folders[0]!, m))).toBe('600');
  });
});

describe('scan2mesh submit with one scan named twice', () => {
  it('sends it once, saying so (a review: two jobs, and skull.stl beside "skull (2).stl")', () => {
    const cranium = join(FIXTURES, 'ct-human-cranium-teeth');
    const data = join(work, 'twice-data');
    const mesh = makeable.includes('skull') ? 'skull' : makeable[0]!;
    const r = cli(data, 'submit', cranium, `${cranium}/`, '--mesh', mesh, '--out', join(work, 'twice-out'));
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`${cranium}/: left out: the same folder or file as ${cranium}, given again\n`);
    expect(queued(data)).toHaveLength(1);
  });
});

describe('scan2mesh submit --deidentify names folders without the series description', () => {
  it('names the folders of a scan with two series by their places, not their numbers', () => {
    // Two series of one folder, each described with a name (free text de-identification removes).
    const scan = join(work, 'two-series');
    const cranium = join(FIXTURES, 'ct-human-cranium-teeth');
    for (const [k, description] of ['DOE JANE', 'JANE DOE'].entries()) {
      mkdirSync(join(scan, `s${k}`), { recursive: true });
      for (const f of readdirSync(cranium)) {
        const bytes = readFileSync(join(cranium, f));
        patchElement(bytes, 'x0008103e', Buffer.from(description));
        // Series Numbers of any digits (here 7 and 9) stay out of names, as descriptions do.
        patchElement(bytes, 'x00200011', Buffer.from(`${7 + 2 * k} `));
        const uid = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' }).elements.x0020000e!;
        bytes.write(String(k), uid.dataOffset + uid.length - 1, 'latin1');
        writeFileSync(join(scan, `s${k}`, f), bytes);
      }
    }
    const mesh = makeable.includes('skull') ? 'skull' : makeable[0]!;
    const data = join(work, 'two-series-data');
    const out = join(work, 'two-series-out');
    const r = cli(data, 'submit', scan, '--mesh', mesh, '--out', out, '--deidentify');
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['two-series-1', 'two-series-2']);
    expect(JSON.stringify(queued(data))).not.toMatch(/DOE|JANE|Series [79]/);
  });
});

/** What `submit --json` prints (submit-fates.ts). */
interface SubmitDoc {
  connection: string | null;
  jobs: { scan: string; seriesId?: string; state: string }[];
  refused: { name: string; reason: string }[];
  scans: {
    scan: string;
    fate: string;
    reason?: string;
    series: { seriesId: string; fate: string; reason?: string; folder?: string; sameSeriesAs?: string }[];
  }[];
}

/** A copy of the cranium's slices with another Series Instance UID (its last digit `k`), and a description. */
function craniumCopy(dir: string, k: number, description: string, count?: number): void {
  const cranium = join(FIXTURES, 'ct-human-cranium-teeth');
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(cranium).slice(0, count)) {
    const bytes = readFileSync(join(cranium, f));
    patchElement(bytes, 'x0008103e', Buffer.from(description.padEnd(8, ' ')));
    const uid = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' }).elements.x0020000e!;
    bytes.write(String(k), uid.dataOffset + uid.length - 1, 'latin1');
    writeFileSync(join(dir, f), bytes);
  }
}

describe('scan2mesh submit --json prints one document with every scan fate, whatever the exit code', () => {
  // A review: 0 bytes on stdout (exit 2) when one scan of several was refused, where another refusal
  // printed a document; and a series left out of a folder was on stderr only, with exit 0.
  it('names the refused scan with its reason, the scans not sent, and a series given twice (exit 2)', () => {
    const root = join(work, 'json-refused');
    craniumCopy(join(root, 'a', 'scan'), 3, 'BONE');
    craniumCopy(join(root, 'b', 'scan'), 3, 'BONE');
    craniumCopy(join(root, 'short'), 4, 'BONE', 2);
    const [a, b, short] = [join(root, 'a', 'scan'), join(root, 'b', 'scan'), join(root, 'short')];
    const data = join(root, 'data');
    const r = cli(data, 'submit', a, b, short, '--mesh', makeable[0]!, '--out', join(root, 'out'), '--json');
    expect(r.status, r.stderr).toBe(2);
    const doc = JSON.parse(r.stdout) as SubmitDoc;
    expect(doc.connection).toBe('the local engine');
    expect(doc.jobs).toEqual([]);
    expect(doc.scans.map((s) => [s.scan, s.fate])).toEqual([
      [a, 'not-sent'],
      [b, 'not-sent'],
      [short, 'refused'],
    ]);
    expect(doc.scans[2]!.reason).toMatch(/no CT series a model can be made of/);
    expect(doc.scans[2]!.series.map((s) => s.fate)).toEqual(['left-out']);
    expect(doc.scans[2]!.series[0]!.reason).toBeTruthy();
    // The copy in another folder is another scan, and said to be the same series.
    expect(doc.scans[1]!.series[0]!.sameSeriesAs).toBe(a);
    expect(r.stderr).toContain(
      `${b}: series "BONE" is the same series (Series Instance UID) as ${a}: series "BONE" (folder scan); a copy in another folder is another scan`,
    );
    expect(queued(data)).toEqual([]);
  });

  it('says the usage error it stopped on (exit 2), with the scans not sent', () => {
    const root = join(work, 'json-usage');
    const r = cli(
      join(root, 'data'),
      'submit',
      PHANTOM_DIR,
      '--mesh',
      'skull',
      '--format',
      'xyz',
      '--out',
      root,
      '--json',
    );
    expect(r.status).toBe(2);
    const doc = JSON.parse(r.stdout) as SubmitDoc & { error: { code: string; message: string } };
    expect(doc.error.code).toBe('usage');
    expect(doc.error.message).toMatch(/--format must be one of/);
    expect(doc.scans.map((s) => [s.scan, s.fate])).toEqual([[PHANTOM_DIR, 'not-sent']]);
  });

  it('lists a series left out of a folder with why, beside the job of the one sent (exit 0)', () => {
    const root = join(work, 'json-left-out');
    const both = join(root, 'both');
    craniumCopy(join(both, 'ct'), 5, 'BONE');
    craniumCopy(join(both, 'few'), 6, 'FEW', 3);
    const mesh = makeable.includes('skull') ? 'skull' : makeable[0]!;
    const r = cli(join(root, 'data'), 'submit', both, '--mesh', mesh, '--out', join(root, 'out'), '--json');
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as SubmitDoc;
    expect(doc.scans).toHaveLength(1);
    expect(doc.scans[0]!.fate).toBe('submitted');
    const fates = doc.scans[0]!.series;
    expect(fates.map((s) => s.fate).sort()).toEqual(['left-out', 'submitted']);
    expect(fates.find((s) => s.fate === 'left-out')!.reason).toBeTruthy();
    const sent = fates.find((s) => s.fate === 'submitted')!;
    expect(sent.folder).toBe('both');
    expect(doc.jobs.map((j) => [j.scan, j.seriesId, j.state])).toEqual([[both, sent.seriesId, 'done']]);
  });
});

describe('scan2mesh submit with long scan names', () => {
  it('gives two scans whose names are cut alike folders of their own', () => {
    // A review: 120 characters kept of each name, and the "-2" made to tell them apart cut off again.
    const root = join(work, 'long-names');
    const name = 'a'.repeat(130);
    craniumCopy(join(root, 'one', name), 7, 'BONE');
    craniumCopy(join(root, 'two', name), 8, 'BONE');
    const out = join(root, 'out');
    const mesh = makeable.includes('skull') ? 'skull' : makeable[0]!;
    const r = cli(
      join(root, 'data'),
      'submit',
      join(root, 'one', name),
      join(root, 'two', name),
      '--mesh',
      mesh,
      '--out',
      out,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual([`${'a'.repeat(118)}-2`, 'a'.repeat(120)]);
    // In each folder its mesh, and the file that says which job it is.
    const files = filesUnder(out)
      .map((f) => join(basename(dirname(f)), basename(f)))
      .sort();
    expect(files).toEqual(
      [`${'a'.repeat(118)}-2`, 'a'.repeat(120)].flatMap((d) => [
        join(d, JOB_MANIFEST),
        join(d, `${mesh}.stl`),
      ]),
    );
  });
});
