import { mkdir, readFile, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../platform/private-files.js';
import { jobOutputPath } from '../settings/output-naming.js';
import type { JobRecord, OutputRecord } from './job-record.js';
import { sourceOf } from './job-source.js';
import { savedOutputState } from './saved-output-state.js';

/**
 * Each job's meshes in a folder of their own. The naming pattern gives a job a folder from names that
 * need not be unique ({scan}/{series}/...: a dropped folder named "DICOM", two patients of one name,
 * "Bone" and "BONE" on a file system that ignores case), and a review found two patients' skulls in
 * one folder, told apart only by " (2)" in a file name, with no word. So the folder the pattern names
 * is the job's only while no other job (nor anything of the user's) is in it: otherwise the job takes
 * "name (2)", "name (3)"... A file in the folder says which job it is (JOB_MANIFEST): it claims the
 * folder, lets a resumed job find it again, and tells whoever opens the folder where its meshes came
 * from. Patterns whose folders are shared by design (no folder part, or folders by {structures}) keep
 * their folders; their files are numbered as before.
 */
export const JOB_MANIFEST = 'scan2mesh-job.json';

/** How many "name (n)" folders are tried before the output folder is called too full. */
const MAX_FOLDERS = 999;

/**
 * The folder the pattern gives this job's meshes, when it gives each job one; else undefined. A
 * folder shared by design is one named by structure, or one whose file names already tell scans
 * apart ({date}/{scan}_{structures}{ext}: a review saw a day's folder split into one per job).
 */
export function patternFolderOf(job: JobRecord): string | undefined {
  const segments = job.namingTemplate.trim().split(/[\\/]/);
  const folderPart = segments.slice(0, -1).join('/');
  const filePart = segments.at(-1) ?? '';
  if (!folderPart || folderPart.includes('{structures}')) return undefined;
  if (/\{(scan|patient|jobId)\}/.test(filePart)) return undefined;
  const first = job.outputs[0];
  return first ? dirname(jobOutputPath(job, first)) : undefined;
}

/** Where a mesh of the job goes: its name by the pattern, in the job's own folder when it has one. */
export function meshPathIn(folder: string | undefined, job: JobRecord, output: OutputRecord): string {
  const byPattern = jobOutputPath(job, output);
  return folder === undefined ? byPattern : join(folder, basename(byPattern));
}

/**
 * The job's own folder, claimed for it (made, with its JOB_MANIFEST) if not yet; undefined when the
 * pattern gives jobs no folder of their own.
 */
export async function claimJobFolder(job: JobRecord): Promise<string | undefined> {
  const natural = patternFolderOf(job);
  if (natural === undefined) return undefined;
  const saved = await knownFolder(job, natural);
  if (saved !== undefined) {
    if (saved.owner === undefined) {
      // Made again if the user removed it: the meshes still to come go there, with their manifest.
      await mkdir(saved.folder, { recursive: true, mode: PRIVATE_DIR_MODE }).catch(() => {});
      await writeManifest(saved.folder, job).catch(() => {});
    }
    return saved.folder;
  }
  const seen = new Map<string, FolderState>();
  const claimed = await claimedFolder(job, natural, seen);
  if (claimed !== undefined) return claimed;
  for (let n = 1; n <= MAX_FOLDERS; n++) {
    const candidate = numbered(natural, n);
    // As the search above just found it: a folder claimed since then refuses the manifest below.
    const { names, owner } = seen.get(candidate) ?? (await folderState(candidate));
    if (owner !== undefined) continue;
    if (names === undefined) await mkdir(candidate, { recursive: true, mode: PRIVATE_DIR_MODE });
    // Anything but this job's own unfinished downloads: someone else's files.
    else if (names.some((name) => !isOwnPartial(name, job))) continue;
    try {
      await writeManifest(candidate, job);
      return candidate;
    } catch (e) {
      // Another process claimed it a moment ago (for this job, or another).
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if ((await ownerOf(candidate)) === job.id) return candidate;
    }
  }
  throw new AppError('bad-input', `Too many folders named like ${natural} exist already.`, {
    action: 'Choose another output folder, or tidy this one.',
  });
}

/** The job's folder if it has claimed one already (read only: for tidying after it), else undefined. */
export async function findJobFolder(job: JobRecord): Promise<string | undefined> {
  const natural = patternFolderOf(job);
  if (natural === undefined) return undefined;
  return (await knownFolder(job, natural))?.folder ?? (await claimedFolder(job, natural));
}

/**
 * The folder whose manifest names this job, if any. Numbered folders are made in turn, so the search
 * ends at the first missing one after the pattern's own, which may be missing itself: a review saw a
 * job claim the pattern's folder again when the user had deleted it, leaving its "(2)" folder behind.
 */
async function claimedFolder(
  job: JobRecord,
  natural: string,
  seen?: Map<string, FolderState>,
): Promise<string | undefined> {
  for (let n = 1; n <= MAX_FOLDERS; n++) {
    const candidate = numbered(natural, n);
    const state = await folderState(candidate);
    seen?.set(candidate, state);
    if (state.owner === job.id) return candidate;
    if (n > 1 && state.names === undefined) return undefined;
  }
  return undefined;
}

/** A folder's names (undefined: there is none) and whose its manifest says it is (ownerOf). */
interface FolderState {
  names: string[] | undefined;
  owner: string | undefined;
}

/**
 * The listing first: a folder that is not there, or has no manifest, has no owner, and is not opened
 * again for one (most folders a job looks at do not exist yet; each look is a round trip to the disk).
 */
async function folderState(folder: string): Promise<FolderState> {
  const names = await namesIn(folder);
  return { names, owner: names?.includes(JOB_MANIFEST) ? await ownerOf(folder) : undefined };
}

/**
 * Removes the job's folder when nothing but its manifest is in it (a job removed or canceled before any
 * mesh was saved), so that the next job of that scan is not sent to "name (2)" for an empty folder.
 */
export async function releaseEmptyJobFolder(job: JobRecord): Promise<void> {
  const folder = await findJobFolder(job).catch(() => undefined);
  if (folder !== undefined) await releaseIfOnlyManifest(folder, job.id);
}

/** Removes `folder` when all it holds is the manifest that gives it to job `jobId`. */
async function releaseIfOnlyManifest(folder: string, jobId: string): Promise<void> {
  const names = await namesIn(folder);
  if (names?.length !== 1 || names[0] !== JOB_MANIFEST || (await ownerOf(folder)) !== jobId) return;
  await rm(join(folder, JOB_MANIFEST), { force: true });
  await rmdir(folder).catch(() => {});
}

/**
 * Removes the file an earlier attempt of the job saved for this mesh, once this attempt's mesh is
 * downloaded whole and about to be placed: a retry that makes a new service job saves every mesh
 * again, and the first attempt's file stayed beside "name (2)" (or in the folder of the earlier
 * service job), listed by no job (a review). Only while it is exactly what that attempt saved: a file
 * the user has changed or moved since is theirs and stays. Its folder goes too when the job's
 * manifest is all that is left in it.
 */
export async function removeEarlierAttempt(job: JobRecord, output: OutputRecord): Promise<void> {
  const { path, bytes } = output;
  if (output.status === 'saved' || path === undefined || bytes === undefined) return;
  if (savedOutputState({ path, bytes }) !== 'saved') return;
  await rm(path, { force: true });
  await releaseIfOnlyManifest(dirname(path), job.id);
}

/**
 * The folder of a mesh of the job already saved: a job begun by a version that claimed no folder
 * goes on where its first meshes are.
 */
async function knownFolder(
  job: JobRecord,
  natural: string,
): Promise<{ folder: string; owner: string | undefined } | undefined> {
  const saved = job.outputs.find((o) => o.status === 'saved' && o.path)?.path;
  if (!saved) return undefined;
  const folder = dirname(saved);
  // Only a folder of the pattern's ("name" or "name (n)"): a pattern changed since names another.
  if (folder !== natural && !folder.startsWith(`${natural} (`)) return undefined;
  const owner = await ownerOf(folder);
  return owner === undefined || owner === job.id ? { folder, owner } : undefined;
}

/** Claims `folder` for the job: fails with EEXIST when a manifest (anyone's) is there already. */
const writeManifest = (folder: string, job: JobRecord): Promise<void> =>
  writeFile(join(folder, JOB_MANIFEST), manifest(job), { flag: 'wx', mode: PRIVATE_FILE_MODE });

const numbered = (folder: string, n: number): string => (n === 1 ? folder : `${folder} (${n})`);

/**
 * Which job a folder's manifest names; '' for a manifest not of ours or unreadable (the folder is
 * someone's), undefined when there is none.
 */
async function ownerOf(folder: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(join(folder, JOB_MANIFEST), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return '';
  }
  try {
    const job = (JSON.parse(text) as { job?: unknown }).job;
    return typeof job === 'string' ? job : '';
  } catch {
    return '';
  }
}

async function namesIn(folder: string): Promise<string[] | undefined> {
  try {
    return await readdir(folder);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // A file where the folder would be, or one that cannot be read: not the job's.
    return [''];
  }
}

/** A staging file or partial download of this job's (output-place.ts names them so). */
const isOwnPartial = (name: string, job: JobRecord): boolean =>
  name.startsWith('.') && name.includes(`.${job.id.slice(0, 8)}-`);

/** What the folder's manifest says: which job, of which scan, from which service, made what. */
function manifest(job: JobRecord): string {
  return `${JSON.stringify(
    {
      about:
        'Meshes made by scan2mesh for one job. Every mesh in this folder is of the scan named here; a mesh of another job goes to a folder of its own.',
      job: job.id,
      serviceJob: job.remoteJobId ?? null,
      service: job.profileName,
      created: job.createdAt,
      scan: job.scanName,
      // Where the scan was read from: two scans of one name (p1/scan, p2/scan) told apart (a review).
      source: sourceOf(job.sourceFiles) ?? null,
      series: job.seriesDescription,
      deidentified: job.deidentify,
      meshes: job.outputs.map((o) => ({ structures: o.structures, extension: o.extension })),
    },
    null,
    2,
  )}\n`;
}
