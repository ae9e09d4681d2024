import { basename } from 'node:path';
import { AppError } from '../../../src-shared/errors.js';
import { OUTPUT_AVAILABLE, type MeshResult, type PollResult } from '../../../src-shared/job-spec.js';
import type { ResolvedConnection } from '../../connections/connection-resolver.js';
import { PresignedRefusedError } from '../../service/service-client.js';
import { matchResults, notListed } from '../../service/result-match.js';
import { stillComing } from '../../service/output-status.js';
import { unavailableOutput } from '../../service/service-errors.js';
import { errorOf, isUnknownJob } from '../job-errors.js';
import { removeJobPackage } from '../job-leftovers.js';
import type { JobRecord, OutputRecord } from '../job-record.js';
import type { JobRun } from '../job-run.js';
import { claimJobFolder, meshPathIn, removeEarlierAttempt } from '../output-folder.js';
import {
  adoptPlaced,
  checkMeshFile,
  placeStaged,
  removeFile,
  removePartials,
  stagingPath,
  statOrNull,
} from '../output-place.js';
import { startOverOnLocalEngine } from './processing.js';

/**
 * The output phase: download each mesh to a staging file, give it its final name, record it (synced),
 * and once every mesh is saved remove the package and mark the job done. A crash at any point resumes
 * without saving a mesh twice (see output-place.ts).
 */
export async function fetchOutputs(run: JobRun, start: JobRecord): Promise<void> {
  const { d } = run;
  const conn = await d.connections.resolve(start);
  const release = await d.slots.download.acquire(start.id, run.priority(), run.signal);
  try {
    const job = d.store.get(start.id) as JobRecord;
    const remoteJobId = job.remoteJobId as string;
    // Meshes the service lists as not made (a status other than Available): the others are saved.
    const missing: MeshResult[] = [];
    // Meshes it lists as still coming: asked for again once the others are saved (stillComing).
    const coming: MeshResult[] = [];
    run.comingSince ??= Date.now();
    // Claimed before the first download: the staging files go there too.
    const folder = await claimJobFolder(job);
    const mayWait = conn.kind !== 'local-engine' && Date.now() - run.comingSince < MAX_COMING_MS;
    for (const output of job.outputs) {
      const dest = meshPathIn(folder, job, output);
      const staging = stagingPath(dest, job.id, output.idx);
      if (output.status === 'saved') {
        // Saved, but a crash may have come before the staging name was removed.
        await removeFile(staging);
        continue;
      }
      const listed = await removePartials(staging);
      let record: MeshResult;
      try {
        record = await resultFor(run, conn, remoteJobId, output.idx, job);
      } catch (e) {
        if (conn.kind === 'local-engine' && isUnknownJob(e)) return await startOverOnLocalEngine(run, job, e);
        throw e;
      }
      if (record.status !== OUTPUT_AVAILABLE) {
        (mayWait && stillComing(record.status) ? coming : missing).push(record);
        continue;
      }
      // A staging file is whole: a download gets that name only once it has been checked. Its
      // check's note (what the viewer will warn of, or not read) is not kept: it is checked again.
      const staged = listed ? await statOrNull(staging) : null;
      const adopted = staged && (await adoptPlaced(staged, dest));
      const checkNote = (): Promise<string | undefined> =>
        checkMeshFile(staging, output.extension, basename(dest));
      if (adopted) {
        const saved = { path: adopted, bytes: staged.size };
        d.store.saveOutput(job.id, output.idx, withNote(saved, record, await checkNote()));
        await removeFile(staging);
        continue;
      }
      let bytes: number;
      let note: string | undefined;
      if (staged) [bytes, note] = [staged.size, await checkNote()];
      else ({ bytes, record, note } = await downloadMesh(run, conn, job, output, staging, record));
      await removeEarlierAttempt(job, output);
      const final = await placeStaged(staging, dest);
      d.store.saveOutput(job.id, output.idx, withNote({ path: final, bytes }, record, note));
      await removeFile(staging);
      run.log.info('mesh saved', { jobId: job.id, idx: output.idx, bytes });
    }
    if (coming.length > 0) stillComingError(run, remoteJobId, coming);
    if (missing.length > 0) {
      // Failed, not done: what was asked for is not all there. The package stays for a retry.
      await run.transition(job, 'failed', { error: errorOf(partialResult(conn, remoteJobId, job, missing)) });
      return;
    }
    // The meshes are saved: the packaged scan (a copy of patient data) is not kept. Removed before the
    // job is marked done, so that a done job never has one (a crash in between: the resumed download
    // finds every mesh saved and only marks it done).
    await removeJobPackage(d.packagesDir, job);
    await run.transition(job, 'done', { progress: { fraction: 1 }, error: null, resumeState: null });
  } finally {
    release();
  }
}

/**
 * Downloads one mesh to its staging name, checked to be a whole file of its format (`note`: what its
 * check says of it, if anything). An expired address is replaced by a fresh poll once; a refusal of
 * the fresh one too is final, not waited out.
 */
async function downloadMesh(
  run: JobRun,
  conn: ResolvedConnection,
  job: JobRecord,
  output: OutputRecord,
  staging: string,
  record: MeshResult,
): Promise<{ bytes: number; record: MeshResult; note: string | undefined }> {
  const total = job.outputs.length;
  let note: string | undefined;
  const download = async (r: MeshResult) =>
    (
      await conn.client.download(r.url as string, staging, {
        signal: run.signal,
        // The service's size has no stated unit: a hint for the progress, never a verdict.
        ...(r.size !== undefined ? { expectedSize: r.size } : {}),
        verify: async (path) => {
          note = await checkMeshFile(path, output.extension, basename(meshPathIn(undefined, job, output)));
        },
        onProgress: (got, size) =>
          run.d.onProgress(job.id, {
            fraction: (output.idx + (size ? got / size : 0)) / total,
            bytesDone: got,
            ...(size !== undefined ? { bytesTotal: size } : {}),
            stage: `downloading ${output.idx + 1} of ${total}`,
          }),
      })
    ).bytes;
  try {
    return { bytes: await download(record), record, note };
  } catch (e) {
    if (!(e instanceof PresignedRefusedError)) throw e;
  }
  // Download addresses expire; a fresh poll hands out new ones.
  run.result = undefined;
  const fresh = await resultFor(run, conn, job.remoteJobId as string, output.idx, job);
  if (fresh.status !== OUTPUT_AVAILABLE)
    throw new AppError('job-failed', `${unavailableOutput(fresh)} now, after it was listed as Available.`, {
      action: 'Retry the job; if it happens again, report it to the service operator.',
    });
  try {
    return { bytes: await download(fresh), record: fresh, note };
  } catch (e) {
    if (!(e instanceof PresignedRefusedError)) throw e;
    throw new AppError('service', `${e.message} It was refused again with a fresh address.`, {
      action:
        "Check that this computer's clock is right, then retry the job; if it happens again, report it to the service operator.",
      cause: e,
    });
  }
}

/** The result record of one mesh, polling for the result (and fresh addresses) when not in memory. */
async function resultFor(
  run: JobRun,
  conn: ResolvedConnection,
  remoteJobId: string,
  idx: number,
  job: JobRecord,
): Promise<MeshResult> {
  if (!run.result) {
    const s = await conn.client.pollOnce(remoteJobId, run.signal);
    if (s.state !== 'finished')
      throw new AppError('service', `The service says job ${remoteJobId} is processing again.`, {
        action: 'Try again later.',
        retryable: true,
      });
    run.result = s.result;
  }
  const record = matchResult(job, idx, run.result);
  // One the service did not make has no address to give; the caller names it.
  if (record && record.status !== OUTPUT_AVAILABLE) return record;
  if (!record?.url)
    throw new AppError(
      'service',
      `Job ${remoteJobId} finished without a download address for ${(job.outputs[idx]?.structures ?? []).join('+')}.`,
      { action: 'Report it to the service operator.' },
    );
  return record;
}

/**
 * The service's record for the idx-th requested mesh (result-match.ts); one it does not list stands
 * as not made, naming what it lists.
 */
export function matchResult(job: JobRecord, idx: number, result: PollResult): MeshResult | undefined {
  const records = result.outputFiles?.meshes ?? [];
  const wanted = job.outputs.find((o) => o.idx === idx);
  if (!wanted) return undefined;
  const requested = [...job.outputs].sort((a, b) => a.idx - b.idx);
  return matchResults(requested, records)[requested.indexOf(wanted)] ?? notListed(wanted, records);
}

/**
 * How long a finished job's outputs may be listed as still coming before they count as not made: a
 * service delivers its files within minutes of finishing; the step's own give-up time is 12 hours.
 */
const MAX_COMING_MS = 30 * 60_000;

/**
 * Outputs the service lists as still coming, after the others were saved: asked for again later, with
 * the backoff of any step the service is not ready for, rather than taken for not made.
 */
function stillComingError(run: JobRun, remoteJobId: string, coming: MeshResult[]): never {
  // The next try polls again: the statuses and addresses are the service's to change.
  run.result = undefined;
  const names = coming.map((r) => `${r.structures.join('+')}${r.extension} ("${r.status}")`).join(', ');
  throw new AppError(
    'service',
    `Job ${remoteJobId} is finished, but the service lists ${names} as not ready yet; the meshes that are ready are saved, and it is asked again later.`,
    {
      action: 'Nothing to do: the job goes on by itself, or fails naming the meshes that never came.',
      retryable: true,
    },
  );
}

/** The job ended with only some of its meshes: which are saved, which were not made, and why. */
function partialResult(
  conn: ResolvedConnection,
  remoteJobId: string,
  job: JobRecord,
  missing: MeshResult[],
): AppError {
  const made = job.outputs.length - missing.length;
  const saved =
    made === 0
      ? 'Nothing was saved'
      : made === 1
        ? 'The mesh it made is saved'
        : `The ${made} meshes it made are saved`;
  const local = conn.kind === 'local-engine';
  const why = missing.map((m) => unavailableOutput(m, local)).join('. ');
  // The local engine's refusals are final and its own (no service, no operator, no job id to quote).
  if (local)
    return new AppError(
      'job-failed',
      `The local engine made ${made} of the ${job.outputs.length} meshes. ${why}. ${saved}.`,
      {
        action:
          'Open what was saved. Submit the scan again without the structures it refused, or use a remote segmentation service for them.',
        retryable: false,
      },
    );
  return new AppError(
    'job-failed',
    `The service made ${made} of the ${job.outputs.length} meshes of job ${remoteJobId}. ${why}. ${saved}.`,
    {
      action:
        'Open what was saved. For the rest, check the requested structures and retry (the whole job is sent again), or ask the service operator.',
    },
  );
}

/** The saved mesh with what the service said of it, then what its check says (mesh-check.ts). */
function withNote(
  saved: { path: string; bytes: number },
  record: MeshResult,
  checked: string | undefined,
): { path: string; bytes: number; note?: string } {
  const said = record.note?.trim();
  if (checked === undefined) return record.note !== undefined ? { ...saved, note: record.note } : saved;
  if (!said) return { ...saved, note: checked };
  // Two sentences: the service's note may come without its full stop.
  return { ...saved, note: `${said}${/[.!?]$/.test(said) ? '' : '.'} ${checked}` };
}
