import { stat } from 'node:fs/promises';
import { AppError, isAppError } from '../../../src-shared/errors.js';
import type { JobSpec } from '../../../src-shared/job-spec.js';
import type { JobState } from '../../../src-shared/jobs.js';
import type { ResolvedConnection } from '../../connections/connection-resolver.js';
import { PresignedRefusedError } from '../../service/service-client.js';
import { freshPrivateDir, packageDirOf } from '../job-leftovers.js';
import type { InputPatch, JobRecord } from '../job-record.js';
import { stamp } from '../job-rows.js';
import { CBCT, type JobRun } from '../job-run.js';
import { packageCompression } from '../loopback-tuning.js';

/**
 * The input phase: package the scan, create the remote job, upload the package, notify the service.
 * Each state is committed before the step it names starts: a job with a remote id is never created
 * again, and an upload not yet notified is sent again.
 */

interface Package {
  path: string;
  extension: string;
  bytes: number;
}

/** A package, and what the job's input should record of it when it was just made (not yet written). */
interface Packed {
  pkg: Package;
  record?: InputPatch;
}

/**
 * Remote jobs created on the app's own because an upload address an earlier run was given had
 * expired (the app was closed meanwhile): one. Each job left without its scan may be billed, so
 * anything more is a person's decision (a review: a long upload whose address expired midway
 * made four jobs in a row, each uploaded and refused alike).
 */
const MAX_RECREATE = 1;
/** Under this, a refused address cannot have expired (no storage hands out addresses living less). */
const FRESH_ADDRESS_MS = 60_000;

export async function sendInput(run: JobRun, start: JobRecord): Promise<void> {
  const { d } = run;
  const conn = await d.connections.resolve(start);
  let job = await forgetUnreachableRemote(run, start, conn);
  if (!job.remoteJobId && job.createSentAt) job = afterUnknownCreate(run, job, conn);

  let releasePrepare = await d.slots.prepare.acquire(job.id, run.priority(), run.signal);
  // Paused while it waited for its turn: it gives the turn back and stays waiting, as the user is
  // told ("waiting jobs do not start"), instead of starting to package.
  while (job.state === 'queued' && d.gate.blocks()) {
    releasePrepare();
    await d.gate.wait(run.signal);
    releasePrepare = await d.slots.prepare.acquire(job.id, run.priority(), run.signal);
  }
  let releaseUpload: () => void;
  let pkg: Package;
  let record: InputPatch | undefined;
  try {
    if (!job.remoteJobId && job.state === 'queued')
      job = await run.transition(job, 'preparing', { progress: {} });
    ({ pkg, record } = await ensurePackage(run, job, conn));
    // A job that has its remote job already records a new package now; the others with the creation
    // of their remote job, in one commit. Lost to a crash meanwhile, the package is made again.
    if (record && job.remoteJobId) {
      d.store.setInput(job.id, CBCT, record);
      record = undefined;
    }
    // Take the upload slot before letting the next job package: at most (uploads) packages wait on disk.
    releaseUpload = await d.slots.upload.acquire(job.id, run.priority(), run.signal);
  } finally {
    releasePrepare();
  }
  let notified: string[];
  try {
    for (;;) {
      job = d.store.get(job.id) as JobRecord;
      /** When this run was given the upload addresses; undefined: an earlier run was. */
      let addressesAt: number | undefined;
      if (!job.remoteJobId) {
        job = await createRemote(run, job, conn, pkg, record);
        record = undefined;
        addressesAt = Date.now();
      }
      try {
        ({ job, notified } = await uploadAndNotify(run, job, conn, pkg));
        break;
      } catch (e) {
        if (!(e instanceof PresignedRefusedError)) throw e;
        // An address this run was given: refused, or expired while the scan was being sent (a new
        // job's would go the same way). No other job is made on the app's own.
        if (addressesAt !== undefined || run.recreated >= MAX_RECREATE)
          throw refusedAddress(job, addressesAt, e);
        // Given by an earlier run (the app was closed meanwhile): expired before anything was sent
        // and nothing was processed, so one new job is made (service-interface.md leaves address
        // lifetimes open).
        run.recreated++;
        job = await dropRemote(run, job, 'submitting', 'the upload address expired');
      }
    }
    // The notifications are recorded with the state they lead to, in one commit (a crash before it
    // sends them again, which the service takes as it took the first).
    await run.transition(
      job,
      'processing',
      { progress: { fraction: 0, stage: 'waiting for the service' } },
      undefined,
      {
        inputs: notified.map((name) => ({ name, patch: { notified: true } })),
      },
    );
  } finally {
    releaseUpload();
  }
}

/** Storage refused an upload address: the job fails, naming the service job left without its scan. */
function refusedAddress(job: JobRecord, givenAt: number | undefined, e: PresignedRefusedError): AppError {
  const seconds = givenAt === undefined ? undefined : Math.round((Date.now() - givenAt) / 1000);
  const when =
    seconds === undefined
      ? ''
      : seconds * 1000 < FRESH_ADDRESS_MS
        ? ` ${seconds} s after the service gave its address`
        : ` ${seconds} s after the service gave its address (it may have expired while the scan was being sent)`;
  return new AppError(
    'service',
    `Storage refused the upload (${e.status}${e.detail})${when}. The service job ${job.remoteJobId ?? ''} is left without its scan; no other job was created, as the service may bill per job.`,
    {
      action:
        "Check the computer's clock and date, then retry the job: it asks the service for a new job and address. If it happens again, tell the service operator (a long upload may need addresses that last longer).",
    },
  );
}

/** Forgets the remote job (it is unusable) and sends the job to `to` to be created again. */
export function dropRemote(run: JobRun, job: JobRecord, to: JobState, reason: string): Promise<JobRecord> {
  return run.transition(
    job,
    to,
    { remoteJobId: null, serviceUrl: null, createSentAt: null, progress: {} },
    { reason, previousRemoteJobId: job.remoteJobId ?? null },
    { forgetRemote: true },
  );
}

/**
 * A local engine that was restarted hands out new addresses; the old upload addresses lead nowhere.
 * Such a job is created again from its package: allowed only for the local engine, which is ours and
 * bills nothing.
 */
async function forgetUnreachableRemote(
  run: JobRun,
  job: JobRecord,
  conn: ResolvedConnection,
): Promise<JobRecord> {
  if (!job.remoteJobId || conn.kind !== 'local-engine') return job;
  const input = job.inputs.find((i) => i.name === CBCT);
  // The engine's own addresses (the upload address is forgotten once used, the notify one once
  // notified: an input notified is never sent again).
  const address = input?.notifyUrl ?? input?.uploadUrl;
  if (!input || input.notified || !address) return job;
  if (sameOrigin(address, conn.baseUrl)) return job;
  return dropRemote(
    run,
    job,
    job.state === 'queued' ? 'queued' : 'submitting',
    'the local engine was restarted',
  );
}

/** POST /job went out and its answer was not stored (a crash in between): the job may exist. */
function afterUnknownCreate(run: JobRun, job: JobRecord, conn: ResolvedConnection): JobRecord {
  if (conn.kind === 'local-engine') {
    run.d.store.update(
      job.id,
      { createSentAt: null },
      { kind: 'recreate', detail: { reason: 'outcome of job creation unknown; local engine' } },
    );
    return run.d.store.get(job.id) as JobRecord;
  }
  throw new AppError(
    'job-may-exist',
    'The app stopped while the job was being created, so it does not know whether the service has it.',
    {
      action:
        'Check with the service operator for a job created at that time; submit it again only if there is none (Submit again in the app, `scan2mesh retry <id> --resubmit`): the service may bill twice.',
      retryable: false,
    },
  );
}

async function ensurePackage(run: JobRun, job: JobRecord, conn: ResolvedConnection): Promise<Packed> {
  const { d } = run;
  const input = job.inputs.find((i) => i.name === CBCT);
  if (!input) throw new AppError('internal', `Job ${job.id} has no cbct input.`);
  if (input.packagePath && input.extension && input.bytes !== undefined) {
    const size = await stat(input.packagePath).then(
      (s) => s.size,
      () => -1,
    );
    if (size === input.bytes)
      return { pkg: { path: input.packagePath, extension: input.extension, bytes: input.bytes } };
  }
  // Nothing more to send: the package is not needed again.
  if (job.remoteJobId && job.inputs.every((i) => i.uploaded))
    return {
      pkg: { path: input.packagePath ?? '', extension: input.extension ?? '', bytes: input.bytes ?? 0 },
    };
  // Read again by this job alone (after a restart): its unpacked copy goes once it is packed.
  const reread = !d.scans.series(job.seriesId);
  if (reread) {
    d.onProgress(job.id, { stage: 'reading the scan again' });
    await d.scans.intake(job.sourceFiles, { signal: run.signal });
  }
  if (!d.scans.series(job.seriesId))
    throw new AppError(
      'bad-input',
      'The files of this scan are no longer where they were, or have changed.',
      {
        action: 'Put the scan back where it was and retry, or submit it again.',
      },
    );
  const outDir = packageDirOf(d.packagesDir, job.id);
  // A copy of patient data: in a private folder, and written readable by the user only (ScanSource).
  await freshPrivateDir(d.packagesDir, outDir);
  d.onProgress(job.id, { fraction: 0, stage: job.deidentify ? 'removing patient data' : 'packing the scan' });
  const pkg = await d.scans
    .packageForUpload(job.seriesId, {
      deidentify: job.deidentify,
      acceptBurnedIn: job.acceptBurnedIn === true,
      compress: packageCompression(conn.kind),
      outDir,
      signal: run.signal,
      onProgress: (done, total) =>
        d.onProgress(job.id, { fraction: total > 0 ? done / total : 0, bytesDone: done, bytesTotal: total }),
    })
    .finally(() => (reread ? d.scans.forget([job.seriesId]) : undefined));
  run.log.info('packaged', { jobId: job.id, bytes: pkg.bytes, extension: pkg.extension });
  return { pkg, record: { packagePath: pkg.path, extension: pkg.extension, bytes: pkg.bytes } };
}

async function createRemote(
  run: JobRun,
  job: JobRecord,
  conn: ResolvedConnection,
  pkg: { extension: string },
  packageRecord: InputPatch | undefined,
): Promise<JobRecord> {
  // Written, and synced, before the request: a crash or power cut after it was sent must not lead to
  // a silent second job. Not synced for the local engine: a job whose creation it may have received
  // is created again there whatever the record says (afterUnknownCreate), which bills nothing. A
  // package just made is recorded with it.
  const durable = conn.kind !== 'local-engine';
  job = await run.transition(
    job,
    'submitting',
    { createSentAt: stamp(), progress: { stage: 'creating the job' } },
    undefined,
    { durable, ...(packageRecord ? { inputs: [{ name: CBCT, patch: packageRecord }] } : {}) },
  );
  let created;
  try {
    created = await conn.client.createJob(spec(job, pkg.extension), run.cancelSignal);
  } catch (e) {
    // 'job-may-exist' and a cancel in flight leave the outcome open; any other failure means no job
    // was created, and the next try may create it.
    if (!(isAppError(e) && (e.code === 'job-may-exist' || e.code === 'canceled')))
      run.d.store.update(job.id, { createSentAt: null });
    throw e;
  }
  // Stored even when a shutdown came meanwhile: the job exists now, and the next start goes on with it.
  const next = await run.transition(
    job,
    created.uploads.length > 0 ? 'uploading' : 'processing',
    { remoteJobId: created.jobId, serviceUrl: conn.baseUrl, createSentAt: null, progress: {} },
    { remoteJobId: created.jobId },
    {
      durable,
      evenIfStopped: true,
      inputs: created.uploads.map((u) => ({
        name: u.input,
        patch: { uploadUrl: u.uploadUrl, notifyUrl: u.notifyUrl, uploaded: false, notified: false },
      })),
    },
  );
  if (run.signal.aborted) throw new AppError('canceled', 'The job was stopped.');
  return next;
}

/** Uploads and notifies each input not done yet; says which were notified (not yet recorded). */
async function uploadAndNotify(
  run: JobRun,
  job: JobRecord,
  conn: ResolvedConnection,
  pkg: { path: string; bytes: number },
): Promise<{ job: JobRecord; notified: string[] }> {
  const { d } = run;
  const notified: string[] = [];
  for (const input of job.inputs) {
    if ((!input.uploadUrl && !input.uploaded) || !input.notifyUrl) {
      if (input.notified || job.state === 'processing') continue;
      throw new AppError('service', `The service gave no upload address for the input "${input.name}".`);
    }
    if (!input.uploaded && input.uploadUrl) {
      if (job.state !== 'uploading') job = await run.transition(job, 'uploading');
      d.onProgress(job.id, { fraction: 0, bytesDone: 0, bytesTotal: pkg.bytes, stage: 'uploading' });
      const jobId = job.id;
      await conn.client.upload(input.uploadUrl, pkg.path, {
        signal: run.signal,
        onProgress: (sent, total) =>
          d.onProgress(jobId, {
            fraction: total ? sent / total : 0,
            bytesDone: sent,
            bytesTotal: total ?? pkg.bytes,
            stage: 'uploading',
          }),
      });
      // The upload is recorded with the next state, in one commit.
      job = await run.transition(
        job,
        'notifying',
        { progress: { stage: 'starting processing' } },
        undefined,
        {
          // The pre-signed address is a write capability to the service's storage until it
          // expires: once used, it is not kept in the job database.
          inputs: [{ name: input.name, patch: { uploaded: true, uploadUrl: null } }],
        },
      );
    }
    if (!input.notified) {
      if (job.state !== 'notifying')
        job = await run.transition(job, 'notifying', { progress: { stage: 'starting processing' } });
      await conn.client.notify(input.notifyUrl, run.signal);
      notified.push(input.name);
    }
  }
  return { job, notified };
}

function spec(job: JobRecord, extension: string): JobSpec {
  const s: JobSpec = {
    inputs: { [CBCT]: { extension } },
    meshes: job.meshes.map((m) => ({ extension: m.extension, structures: [...m.structures] })),
  };
  if (job.options) s.options = job.options;
  return s;
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}
