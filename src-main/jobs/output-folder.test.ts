import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { JobRecord, OutputRecord } from './job-record.js';
import {
  claimJobFolder,
  findJobFolder,
  JOB_MANIFEST,
  meshPathIn,
  releaseEmptyJobFolder,
} from './output-folder.js';

const PATTERN = '{scan}/{series}/{structures}{ext}';

let out: string;
beforeEach(async () => {
  out = await mkdtemp(join(tmpdir(), 'output-folder-'));
});

/** A job as the store gives it, with the fields its mesh names come from. */
function job(id: string, opts: { pattern?: string; saved?: string } = {}): JobRecord {
  const output: OutputRecord = opts.saved
    ? { idx: 0, structures: ['skull'], extension: '.stl', status: 'saved', path: opts.saved }
    : { idx: 0, structures: ['skull'], extension: '.stl', status: 'pending' };
  return {
    id,
    state: 'downloading',
    profileId: 'local',
    profileName: 'Local engine',
    seriesId: `series-${id}`,
    scanName: 'DICOM',
    seriesDescription: 'BONE',
    sourceFiles: ['/scans/p1/DICOM/BONE/1.dcm', '/scans/p1/DICOM/BONE/2.dcm'],
    meshes: [{ structures: ['skull'], extension: '.stl' }],
    deidentify: true,
    outputDir: out,
    namingTemplate: opts.pattern ?? PATTERN,
    priority: 0,
    progress: {},
    attempts: 1,
    submissionSeq: 1,
    createdAt: '2026-11-30T18:00:00.000Z',
    updatedAt: '2026-11-30T18:00:00.000Z',
    inputs: [],
    outputs: [output],
  };
}

const manifestOf = async (folder: string): Promise<Record<string, unknown>> =>
  JSON.parse(await readFile(join(folder, JOB_MANIFEST), 'utf8')) as Record<string, unknown>;

describe("each job's meshes in a folder of their own", () => {
  it('gives a second job of the same names a folder beside the first, and each job its own again', async () => {
    // A review: two patients' scans, both in folders named "DICOM", had their skulls saved into one
    // folder as skull.stl and skull (2).stl, with no word.
    const natural = join(out, 'DICOM', 'BONE');
    const a = job('aaaaaaaa-1');
    const b = job('bbbbbbbb-2');
    expect(await claimJobFolder(a)).toBe(natural);
    expect(await claimJobFolder(b)).toBe(`${natural} (2)`);
    // A resumed job finds its folder again, whichever order the jobs come back in.
    expect(await claimJobFolder(b)).toBe(`${natural} (2)`);
    expect(await claimJobFolder(a)).toBe(natural);
    expect(meshPathIn(`${natural} (2)`, b, b.outputs[0]!)).toBe(join(`${natural} (2)`, 'skull.stl'));
    // The folder says whose it is.
    expect(await manifestOf(`${natural} (2)`)).toMatchObject({
      job: 'bbbbbbbb-2',
      scan: 'DICOM',
      series: 'BONE',
      source: '/scans/p1/DICOM/BONE',
      service: 'Local engine',
      meshes: [{ structures: ['skull'], extension: '.stl' }],
    });
  });

  it("never takes a folder holding someone else's files, but takes an empty one", async () => {
    const natural = join(out, 'DICOM', 'BONE');
    // Meshes of a version that wrote no manifest, or the user's own files.
    await mkdir(natural, { recursive: true });
    await writeFile(join(natural, 'skull.stl'), 'an earlier job');
    await mkdir(`${natural} (2)`);
    expect(await claimJobFolder(job('cccccccc-3'))).toBe(`${natural} (2)`);
    expect(await readdir(natural)).toEqual(['skull.stl']);
  });

  it("takes a folder holding only the job's own unfinished download, and the one its saved meshes are in", async () => {
    const natural = join(out, 'DICOM', 'BONE');
    await mkdir(natural, { recursive: true });
    await writeFile(join(natural, '.skull.stl.dddddddd-0.s2m'), 'half');
    expect(await claimJobFolder(job('dddddddd-4'))).toBe(natural);
    // A job begun before folders were claimed goes on where its first mesh is, and claims it.
    const older = join(out, 'DICOM', 'BONE (7)');
    await mkdir(older);
    await writeFile(join(older, 'skull.stl'), 'its own mesh');
    const resumed = job('eeeeeeee-5', { saved: join(older, 'skull.stl') });
    expect(await claimJobFolder(resumed)).toBe(older);
    expect((await manifestOf(older)).job).toBe('eeeeeeee-5');
  });

  it('gives two jobs claiming at the same moment two folders', async () => {
    const natural = join(out, 'DICOM', 'BONE');
    const jobs = ['ffffffff-6', 'gggggggg-7', 'hhhhhhhh-8'].map((id) => job(id));
    const folders = await Promise.all(jobs.map((j) => claimJobFolder(j)));
    expect(new Set(folders).size).toBe(3);
    for (const [i, f] of folders.entries()) expect((await manifestOf(f!)).job).toBe(jobs[i]!.id);
    expect(folders.sort()).toEqual([natural, `${natural} (2)`, `${natural} (3)`]);
  });

  it('keeps the folders of patterns that share them by design', async () => {
    expect(await claimJobFolder(job('iiiiiiii-9', { pattern: '{structures}{ext}' }))).toBeUndefined();
    expect(
      await claimJobFolder(job('jjjjjjjj-10', { pattern: '{structures}/{scan}-{date}{ext}' })),
    ).toBeUndefined();
    // A day's folder, or a fixed one, whose file names tell scans apart (a review saw them split).
    for (const pattern of ['{date}/{scan}_{structures}{ext}', 'meshes/{scan}-{structures}{ext}'])
      expect(await claimJobFolder(job('mmmmmmmm-13', { pattern }))).toBeUndefined();
    expect(await readdir(out)).toEqual([]);
  });

  it('finds a claimed folder without making one', async () => {
    const a = job('kkkkkkkk-11');
    expect(await findJobFolder(a)).toBeUndefined();
    expect(await readdir(out)).toEqual([]);
    await claimJobFolder(job('llllllll-12'));
    const mine = await claimJobFolder(a);
    expect(await findJobFolder(a)).toBe(mine);
    // Nor one its saved mesh was in, which the user deleted: removing the job must not make it again.
    const gone = job('ssssssss-19', { saved: join(out, 'DICOM', 'BONE (9)', 'skull.stl') });
    expect(await findJobFolder(gone)).toBe(join(out, 'DICOM', 'BONE (9)'));
    expect((await readdir(join(out, 'DICOM'))).sort()).toEqual(['BONE', 'BONE (2)']);
  });
  it('finds its numbered folder again after the one before it was deleted, and remakes one deleted under it', async () => {
    const natural = join(out, 'DICOM', 'BONE');
    const b = job('nnnnnnnn-14');
    await claimJobFolder(job('oooooooo-15'));
    expect(await claimJobFolder(b)).toBe(`${natural} (2)`);
    // The user deletes the first job's folder while b is stopped: b goes on in its own.
    await rm(natural, { recursive: true });
    expect(await claimJobFolder(b)).toBe(`${natural} (2)`);
    expect(await readdir(join(out, 'DICOM'))).toEqual(['BONE (2)']);
    // A job with a mesh saved in a folder the user then deleted: the folder is made again, claimed.
    const older = join(out, 'DICOM', 'BONE (5)');
    const c = job('pppppppp-16', { saved: join(older, 'skull.stl') });
    expect(await claimJobFolder(c)).toBe(older);
    expect((await manifestOf(older)).job).toBe('pppppppp-16');
  });

  it('leaves no folder holding only its manifest when the job goes without a mesh', async () => {
    const natural = join(out, 'DICOM', 'BONE');
    const a = job('qqqqqqqq-17');
    await claimJobFolder(a);
    await releaseEmptyJobFolder(a);
    expect(await readdir(join(out, 'DICOM'))).toEqual([]);
    // The next job of that scan then takes the pattern's folder, not "(2)".
    const b = job('rrrrrrrr-18');
    expect(await claimJobFolder(b)).toBe(natural);
    await writeFile(join(natural, 'skull.stl'), 'a mesh');
    await releaseEmptyJobFolder(b);
    expect((await readdir(natural)).sort()).toEqual([JOB_MANIFEST, 'skull.stl']);
  });
});
