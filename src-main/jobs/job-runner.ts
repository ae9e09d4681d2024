import { rm, stat } from 'node:fs/promises';
import { AppError, isAppError } from '../../src-shared/errors.js';
import type { JobSpec, MeshResult, PollResult } from '../../src-shared/job-spec.js';
import { isTerminal, type JobState, type JobView } from '../../src-shared/jobs.js';
import type { Logger } from '../logging/logger.js';
import { pollInterval, sleep, withJitter, type PollPolicy } from '../service/retry.js';
import { PresignedRefusedError } from '../service/service-client.js';
import type { Connections, ResolvedConnection } from './connections.js';
import {
  errorOf,
  stamp,
  TransitionRefused,
  type JobPatch,
  type JobProgress,
  type JobRecord,
  type JobStore,
} from './job-store.js';
import { makePrivate, packageDirOf, privateDir, removePackage } from './job-leftovers.js';
import { packageCompression, pollPolicyFor } from './loopback-tuning.js';
import { jobOutputPath } from './output-naming.js';
import { adoptPlaced, checkSize, exists, placeStaged, removePartials, stagingPath } from './output-place.js';
import type { JobGate, PrioritySlots } from './slots.js';

/** What the runner needs of the scans side (ScanService): find a series again and package it. */
export interface ScanSource {
  intake(paths: string[], opts?: { signal?: AbortSignal }): Promise<unknown>;
  series(id: string): { id: string } | undefined;
  packageForUpload(
    id: string,
    opts: {
      deidentify: boolean;
      acceptBurnedIn?: boolean;
      /** False: store-only zip (the loopback engine); deflate otherwise. */
      compress?: boolean;
      outDir: string;
      onProgress?: (done: number, total: number) => void;
      signal?: AbortSignal;
    },
  ): Promise<{ path: string; extension: string; bytes: number }>;
}

export interface QueuePolicy extends PollPolicy {
  /** Wait before the first poll of a job that has just started processing (the service needs time anyway). */
  firstPollDelayMs: number;
  /** After a step failed in a way that may pass (network down, service busy): first wait, longest wait. */
  transientBaseMs: number;
  transientMaxMs: number;
  /** A job that keeps failing that way this long is marked failed (it can be retried). */
  giveUpAfterMs: number;
}

export const DEFAULT_QUEUE_POLICY: QueuePolicy = {
  initialMs: 2_000,
  maxMs: 30_000,
  factor: 1.5,
  jitter: 0.2,
  firstPollDelayMs: 1_000,
  transientBaseMs: 5_000,
  transientMaxMs: 5 * 60_000,
  // A night: the technician who queued scans at five expects them in the morning.
  giveUpAfterMs: 12 * 3600_000,
};

/** What the UI shows while a step is being retried: the error, and when the next try is. */
export type JobTrouble = NonNullable<JobView['trouble']>;

export interface RunnerDeps {
  store: JobStore;
  scans: ScanSource;
  connections: Connections;
  slots: { prepare: PrioritySlots; upload: PrioritySlots; download: PrioritySlots };
  gate: JobGate;
  packagesDir: string;
  policy: QueuePolicy;
  logger: Logger;
  /** Progress that is shown but not written on every byte. */
  onProgress(jobId: string, progress: JobProgress): void;
  /** A step is failing and will be tried again (undefined: it works again). Shown, not stored. */
  onTrouble(jobId: string, trouble: JobTrouble | undefined): void;
  /** After each committed change of the job. */
  onChanged(job: JobRecord): void;
}

export type StopReason = 'cancel' | 'shutdown';

const CBCT = 'cbct';
/** New jobs created in a row because upload addresses were refused. */
const MAX_RECREATE = 3;

/**
 * Drives one job through its states. Each state is committed before the step it names starts, so
 * that after a crash the job goes on from where it stood: a job with a remote id is never created
 * again, an upload not yet notified is sent again, a processing job is polled, a download fetched again.
 */
export class JobRunner {
  private readonly abort = new AbortController();
  /** Aborts only when the user cancels: a shutdown lets a job creation finish, so its id is not lost. */
  private readonly cancel = new AbortController();
  private stopReason: StopReason | undefined;
  /** The finished poll result: its download addresses are short-lived, so they are never stored. */
  private result: PollResult | undefined;
  private wakePoll: (() => void) | undefined;
  private recreated = 0;
  /** Polls of the remote job so far: a poll step tried again after a fault goes on at the spacing it had. */
  private polls = 0;
  private readonly log: Logger;
  done: Promise<void> = Promise.resolve();

  constructor(
    private readonly d: RunnerDeps,
    readonly jobId: string,
  ) {
    this.log = d.logger.child('job');
  }

  get stopped(): StopReason | undefined {
    return this.stopReason;
  }

  start(): Promise<void> {
    this.done = this.run();
    return this.done;
  }

  stop(reason: StopReason): void {
    this.stopReason ??= reason;
    this.abort.abort();
    if (reason === 'cancel') this.cancel.abort();
  }

  /** Polls now instead of at the next scheduled time (the user is looking at this job). */
  pollNow(): void {
    this.wakePoll?.();
  }

  private get signal(): AbortSignal {
    return this.abort.signal;
  }

  private async run(): Promise<void> {
    let troubleSince: number | undefined;
    let troubleCount = 0;
    for (;;) {
      const before = milestone(this.d.store.get(this.jobId));
      try {
        await this.d.gate.wait(this.signal);
        // Read after the pause: the job may have been prioritized or canceled meanwhile.
        const job = this.d.store.get(this.jobId);
        if (!job || isTerminal(job.state) || this.signal.aborted) return;
        await this.step(job);
        if (troubleSince !== undefined) this.d.onTrouble(this.jobId, undefined);
        troubleSince = undefined;
        troubleCount = 0;
      } catch (e) {
        if (this.signal.aborted) return;
        // Another process (or the user, through the manager) moved the job: look at it again.
        if (e instanceof TransitionRefused) continue;
        const err = asAppError(e);
        const current = this.d.store.get(this.jobId);
        if (!current || isTerminal(current.state)) return;
        if (milestone(current) !== before) {
          // The step got somewhere before it failed: the trouble clock starts again.
          troubleSince = undefined;
          troubleCount = 0;
        }
        troubleSince ??= Date.now();
        if (isTransient(err) && Date.now() - troubleSince < this.d.policy.giveUpAfterMs) {
          const wait = Math.min(
            this.d.policy.transientMaxMs,
            this.d.policy.transientBaseMs * 2 ** troubleCount++,
          );
          this.log.warn('step failed, will try again', {
            jobId: this.jobId,
            state: current.state,
            waitMs: wait,
            error: err.message,
          });
          this.d.store.note(this.jobId, 'trouble', {
            state: current.state,
            code: err.code,
            message: err.message,
            waitMs: wait,
          });
          this.d.onProgress(this.jobId, {
            ...current.progress,
            stage: `${err.code === 'network' ? 'No connection' : 'The service is busy'}; trying again at ${clock(Date.now() + wait)}`,
          });
          this.d.onTrouble(this.jobId, {
            ...err.toShape(),
            retryable: true,
            retryAt: new Date(Date.now() + wait).toISOString(),
          });
          try {
            await sleep(wait, this.signal);
          } catch {
            return;
          }
          continue;
        }
        this.fail(current, err);
        return;
      }
    }
  }

  private async step(job: JobRecord): Promise<void> {
    switch (job.state) {
      case 'queued':
        if (job.remoteJobId && job.inputs.every((i) => i.notified)) {
          // A retried job whose input reached the service: go on from where it stood.
          const to: JobState = job.resumeState === 'downloading' ? 'downloading' : 'processing';
          this.transition(job, to, { progress: {} });
          return;
        }
        return this.sendInput(job);
      case 'preparing':
      case 'submitting':
      case 'uploading':
      case 'notifying':
        return this.sendInput(job);
      case 'processing':
        return this.waitForService(job);
      case 'downloading':
        return this.fetchOutputs(job);
      default:
        return;
    }
  }

  // ---- input: package, create, upload, notify -------------------------------------------------

  private async sendInput(start: JobRecord): Promise<void> {
    const conn = await this.d.connections.resolve(start);
    let job = this.forgetUnreachableRemote(start, conn);
    if (!job.remoteJobId && job.createSentAt) job = this.afterUnknownCreate(job, conn);

    let releasePrepare = await this.d.slots.prepare.acquire(job.id, this.priority(), this.signal);
    // Paused while it waited for its turn: it gives the turn back and stays waiting, as the user is
    // told ("waiting jobs do not start"), instead of starting to package.
    while (job.state === 'queued' && this.d.gate.blocks()) {
      releasePrepare();
      await this.d.gate.wait(this.signal);
      releasePrepare = await this.d.slots.prepare.acquire(job.id, this.priority(), this.signal);
    }
    let releaseUpload: () => void;
    let pkg: { path: string; extension: string; bytes: number };
    try {
      if (!job.remoteJobId && job.state === 'queued')
        job = this.transition(job, 'preparing', { progress: {} });
      pkg = await this.ensurePackage(job, conn);
      // Take the upload slot before letting the next job package: at most (uploads) packages wait on disk.
      releaseUpload = await this.d.slots.upload.acquire(job.id, this.priority(), this.signal);
    } finally {
      releasePrepare();
    }
    try {
      await this.d.gate.wait(this.signal);
      for (;;) {
        job = this.d.store.get(job.id) as JobRecord;
        if (!job.remoteJobId) job = await this.createRemote(job, conn, pkg);
        try {
          job = await this.uploadAndNotify(job, conn, pkg);
          break;
        } catch (e) {
          if (!(e instanceof PresignedRefusedError)) throw e;
          // The upload address expired before the upload was done: nothing was processed, so a new job
          // is created (service-interface.md leaves address lifetimes open). Not endlessly: a service
          // whose addresses are always refused needs a person.
          if (++this.recreated > MAX_RECREATE)
            throw new AppError(
              'service',
              `The service refused ${this.recreated} fresh upload addresses in a row.`,
              {
                action:
                  "Check the computer's clock and date, then retry; if it happens again, tell the service operator.",
              },
            );
          job = this.dropRemote(job, 'submitting', 'the upload address expired');
        }
      }
      this.transition(job, 'processing', { progress: { fraction: 0, stage: 'waiting for the service' } });
    } finally {
      releaseUpload();
    }
  }

  /**
   * A local engine that was restarted hands out new addresses; the old upload addresses lead nowhere.
   * Such a job is created again from its package: allowed only for the local engine, which is ours and
   * bills nothing.
   */
  private forgetUnreachableRemote(job: JobRecord, conn: ResolvedConnection): JobRecord {
    if (!job.remoteJobId || conn.kind !== 'local-engine') return job;
    const input = job.inputs.find((i) => i.name === CBCT);
    if (!input || input.notified || !input.uploadUrl) return job;
    if (sameOrigin(input.uploadUrl, conn.baseUrl)) return job;
    return this.dropRemote(
      job,
      job.state === 'queued' ? 'queued' : 'submitting',
      'the local engine was restarted',
    );
  }

  /** POST /job went out and its answer was not stored (a crash in between): the job may exist. */
  private afterUnknownCreate(job: JobRecord, conn: ResolvedConnection): JobRecord {
    if (conn.kind === 'local-engine') {
      this.d.store.update(
        job.id,
        { createSentAt: null },
        { kind: 'recreate', detail: { reason: 'outcome of job creation unknown; local engine' } },
      );
      return this.d.store.get(job.id) as JobRecord;
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

  private async ensurePackage(
    job: JobRecord,
    conn: ResolvedConnection,
  ): Promise<{ path: string; extension: string; bytes: number }> {
    const input = job.inputs.find((i) => i.name === CBCT);
    if (!input) throw new AppError('internal', `Job ${job.id} has no cbct input.`);
    if (input.packagePath && input.extension && input.bytes !== undefined) {
      const size = await stat(input.packagePath).then(
        (s) => s.size,
        () => -1,
      );
      if (size === input.bytes)
        return { path: input.packagePath, extension: input.extension, bytes: input.bytes };
    }
    // Nothing more to send: the package is not needed again.
    if (job.remoteJobId && job.inputs.every((i) => i.uploaded))
      return { path: input.packagePath ?? '', extension: input.extension ?? '', bytes: input.bytes ?? 0 };
    if (!this.d.scans.series(job.seriesId)) {
      this.d.onProgress(job.id, { stage: 'reading the scan again' });
      await this.d.scans.intake(job.sourceFiles, { signal: this.signal });
    }
    if (!this.d.scans.series(job.seriesId))
      throw new AppError(
        'bad-input',
        'The files of this scan are no longer where they were, or have changed.',
        {
          action: 'Put the scan back where it was and retry, or submit it again.',
        },
      );
    const outDir = packageDirOf(this.d.packagesDir, job.id);
    await rm(outDir, { recursive: true, force: true });
    // A copy of patient data: readable by the user only, from the first byte written.
    await privateDir(this.d.packagesDir);
    await privateDir(outDir);
    this.d.onProgress(job.id, {
      fraction: 0,
      stage: job.deidentify ? 'removing patient data' : 'packing the scan',
    });
    const pkg = await this.d.scans.packageForUpload(job.seriesId, {
      deidentify: job.deidentify,
      acceptBurnedIn: job.acceptBurnedIn === true,
      compress: packageCompression(conn.kind),
      outDir,
      signal: this.signal,
      onProgress: (done, total) =>
        this.d.onProgress(job.id, {
          fraction: total > 0 ? done / total : 0,
          bytesDone: done,
          bytesTotal: total,
        }),
    });
    await makePrivate(outDir);
    this.d.store.setInput(job.id, CBCT, {
      packagePath: pkg.path,
      extension: pkg.extension,
      bytes: pkg.bytes,
    });
    this.log.info('packaged', { jobId: job.id, bytes: pkg.bytes, extension: pkg.extension });
    return pkg;
  }

  private async createRemote(
    job: JobRecord,
    conn: ResolvedConnection,
    pkg: { extension: string },
  ): Promise<JobRecord> {
    // Written, and synced, before the request: a crash or power cut after it was sent must not lead to
    // a silent second job.
    job = this.d.store.durable(() =>
      this.transition(job, 'submitting', { createSentAt: stamp(), progress: { stage: 'creating the job' } }),
    );
    let created;
    try {
      created = await conn.client.createJob(this.spec(job, pkg.extension), this.cancel.signal);
    } catch (e) {
      // 'job-may-exist' and a cancel in flight leave the outcome open; any other failure means no job
      // was created, and the next try may create it.
      if (!(isAppError(e) && (e.code === 'job-may-exist' || e.code === 'canceled')))
        this.d.store.update(job.id, { createSentAt: null });
      throw e;
    }
    const { store } = this;
    // Stored even when a shutdown came meanwhile: the job exists now, and the next start goes on with it.
    const next = store.durable(() => {
      for (const u of created.uploads)
        store.setInput(job.id, u.input, {
          uploadUrl: u.uploadUrl,
          notifyUrl: u.notifyUrl,
          uploaded: false,
          notified: false,
        });
      return store.transition(
        job.id,
        created.uploads.length > 0 ? 'uploading' : 'processing',
        { remoteJobId: created.jobId, serviceUrl: conn.baseUrl, createSentAt: null, progress: {} },
        { remoteJobId: created.jobId },
      );
    });
    this.log.info('state', { jobId: job.id, from: job.state, to: next.state, remoteJobId: created.jobId });
    this.d.onChanged(next);
    if (this.signal.aborted) throw new AppError('canceled', 'The job was stopped.');
    return next;
  }

  private async uploadAndNotify(
    job: JobRecord,
    conn: ResolvedConnection,
    pkg: { path: string; bytes: number },
  ): Promise<JobRecord> {
    for (const input of job.inputs) {
      if (!input.uploadUrl || !input.notifyUrl) {
        if (input.notified || job.state === 'processing') continue;
        throw new AppError('service', `The service gave no upload address for the input "${input.name}".`);
      }
      if (!input.uploaded) {
        if (job.state !== 'uploading') job = this.transition(job, 'uploading');
        this.d.onProgress(job.id, { fraction: 0, bytesDone: 0, bytesTotal: pkg.bytes, stage: 'uploading' });
        await conn.client.upload(input.uploadUrl, pkg.path, {
          signal: this.signal,
          onProgress: (sent, total) =>
            this.d.onProgress(job.id, {
              fraction: total ? sent / total : 0,
              bytesDone: sent,
              bytesTotal: total ?? pkg.bytes,
              stage: 'uploading',
            }),
        });
        // The upload is recorded with the next state, in one commit.
        job = this.inTransaction(() => {
          this.d.store.setInput(job.id, input.name, { uploaded: true });
          return this.transition(job, 'notifying', { progress: { stage: 'starting processing' } });
        });
      }
      if (!input.notified) {
        if (job.state !== 'notifying')
          job = this.transition(job, 'notifying', { progress: { stage: 'starting processing' } });
        await conn.client.notify(input.notifyUrl, this.signal);
        this.d.store.setInput(job.id, input.name, { notified: true });
      }
    }
    return this.d.store.get(job.id) as JobRecord;
  }

  /** Forgets the remote job (it is unusable) and sends the job to `to` to be created again. */
  private dropRemote(job: JobRecord, to: JobState, reason: string): JobRecord {
    const { store } = this;
    return store.db.transaction(() => {
      store.clearRemoteInputs(job.id);
      store.resetOutputs(job.id);
      return this.transition(
        job,
        to,
        { remoteJobId: null, serviceUrl: null, createSentAt: null, progress: {} },
        { reason, previousRemoteJobId: job.remoteJobId ?? null },
      );
    })();
  }

  private spec(job: JobRecord, extension: string): JobSpec {
    const spec: JobSpec = {
      inputs: { [CBCT]: { extension } },
      meshes: job.meshes.map((m) => ({ extension: m.extension, structures: [...m.structures] })),
    };
    if (job.options) spec.options = job.options;
    return spec;
  }

  // ---- processing: poll --------------------------------------------------------------------------

  private async waitForService(job: JobRecord): Promise<void> {
    const conn = await this.d.connections.resolve(job);
    const remoteJobId = job.remoteJobId;
    if (!remoteJobId) throw new AppError('internal', `Job ${job.id} is processing without a remote job.`);
    // The local engine ends in seconds to minutes and costs nothing to ask: poll it often.
    const policy = pollPolicyFor(conn.kind, this.d.policy);
    // Just notified: the service needs a moment. Resumed: ask at once.
    const fresh = Date.now() - Date.parse(job.updatedAt) < policy.firstPollDelayMs;
    if (fresh) await this.pollSleep(policy.firstPollDelayMs);
    for (;;) {
      await this.d.gate.wait(this.signal);
      let state;
      try {
        state = await conn.client.pollOnce(remoteJobId, this.signal);
      } catch (e) {
        if (conn.kind === 'local-engine' && isUnknownJob(e)) {
          // The local engine does not know the job: it was restarted on a temporary folder (the
          // command line's engine is), or its folder was removed. Ours, nothing billed: the job starts
          // over from its package. A remote service's job is never created again.
          const failed = this.transition(job, 'failed', { error: errorOf(asAppError(e)) });
          this.dropRemote(failed, 'queued', 'the local engine no longer knows the job');
          return;
        }
        throw e;
      }
      if (state.state === 'finished') {
        this.result = state.result;
        this.transition(job, 'downloading', { progress: { fraction: 0, stage: 'downloading' } });
        return;
      }
      // Percent and stage as the service tells them (the local engine does); without them the bar
      // shows work under way rather than a made-up 0 %.
      this.d.onProgress(job.id, {
        ...(state.progress !== undefined ? { fraction: state.progress } : {}),
        stage: state.stage ?? 'processing',
      });
      const wait =
        state.retryAfterMs !== undefined
          ? Math.min(state.retryAfterMs, 10 * 60_000)
          : withJitter(pollInterval(policy, this.polls), policy.jitter);
      this.log.debug('next poll', { jobId: job.id, n: this.polls++, waitMs: wait });
      await this.pollSleep(wait);
    }
  }

  private async pollSleep(ms: number): Promise<void> {
    const wake = new AbortController();
    this.wakePoll = () => wake.abort();
    const both = AbortSignal.any([this.signal, wake.signal]);
    try {
      await sleep(ms, both);
    } catch (e) {
      if (this.signal.aborted) throw e;
    } finally {
      this.wakePoll = undefined;
    }
  }

  // ---- download -----------------------------------------------------------------------------------

  private async fetchOutputs(start: JobRecord): Promise<void> {
    const conn = await this.d.connections.resolve(start);
    const release = await this.d.slots.download.acquire(start.id, this.priority(), this.signal);
    try {
      await this.d.gate.wait(this.signal);
      const job = this.d.store.get(start.id) as JobRecord;
      const remoteJobId = job.remoteJobId as string;
      const total = job.outputs.length;
      for (const output of job.outputs) {
        const dest = jobOutputPath(job, output);
        const staging = stagingPath(dest, job.id, output.idx);
        if (output.status === 'saved') {
          // Saved, but a crash may have come before the staging name was removed.
          await rm(staging, { force: true });
          continue;
        }
        await removePartials(staging);
        let record = await this.resultFor(conn, remoteJobId, output.idx, job);
        const adopted = await adoptPlaced(staging, dest);
        if (adopted) {
          const bytes = await checkSize(adopted, record.size);
          this.d.store.durable(() =>
            this.d.store.saveOutput(job.id, output.idx, withNote({ path: adopted, bytes }, record)),
          );
          await rm(staging, { force: true });
          continue;
        }
        if (!(await exists(staging))) {
          const download = (r: MeshResult) =>
            conn.client.download(r.url as string, staging, {
              onExists: 'overwrite',
              signal: this.signal,
              ...(r.size !== undefined ? { expectedSize: r.size } : {}),
              onProgress: (got, size) =>
                this.d.onProgress(job.id, {
                  fraction: (output.idx + (size ? got / size : 0)) / total,
                  bytesDone: got,
                  ...(size !== undefined ? { bytesTotal: size } : {}),
                  stage: `downloading ${output.idx + 1} of ${total}`,
                }),
            });
          try {
            await download(record);
          } catch (e) {
            if (!(e instanceof PresignedRefusedError)) throw e;
            // Download addresses expire; a fresh poll hands out new ones.
            this.result = undefined;
            record = await this.resultFor(conn, remoteJobId, output.idx, job);
            await download(record);
          }
        }
        let bytes: number;
        try {
          bytes = await checkSize(staging, record.size);
        } catch (e) {
          // Not the announced size: fetched again next time, never placed.
          await rm(staging, { force: true });
          throw e;
        }
        const final = await placeStaged(staging, dest);
        // Synced: a record lost to a power cut would download the mesh again as "name (2)".
        this.d.store.durable(() =>
          this.d.store.saveOutput(job.id, output.idx, withNote({ path: final, bytes }, record)),
        );
        await rm(staging, { force: true });
        this.log.info('mesh saved', { jobId: job.id, idx: output.idx, bytes });
      }
      // The meshes are saved: the packaged scan (a copy of patient data) is not kept. Removed before the
      // job is marked done, so that a done job never has one (a crash in between: the resumed download
      // finds every mesh saved and only marks it done).
      await removePackage(this.d.packagesDir, job.id);
      this.transition(job, 'done', { progress: { fraction: 1 }, error: null, resumeState: null });
    } finally {
      release();
    }
  }

  /** The result record of one mesh, polling for the result (and fresh addresses) when not in memory. */
  private async resultFor(
    conn: ResolvedConnection,
    remoteJobId: string,
    idx: number,
    job: JobRecord,
  ): Promise<MeshResult> {
    if (!this.result) {
      const s = await conn.client.pollOnce(remoteJobId, this.signal);
      if (s.state !== 'finished')
        throw new AppError('service', `The service says job ${remoteJobId} is processing again.`, {
          action: 'Try again later.',
          retryable: true,
        });
      this.result = s.result;
    }
    const record = matchResult(job, idx, this.result);
    if (!record?.url)
      throw new AppError(
        'service',
        `Job ${remoteJobId} finished without a download address for ${(job.outputs[idx]?.structures ?? []).join('+')}.`,
        { action: 'Report it to the service operator.' },
      );
    return record;
  }

  // ---- state ---------------------------------------------------------------------------------------

  private get store(): JobStore {
    return this.d.store;
  }

  private priority(): number {
    return this.d.store.priorityOf(this.jobId);
  }

  private transition(
    job: JobRecord,
    to: JobState,
    patch: JobPatch = {},
    detail?: Record<string, unknown>,
  ): JobRecord {
    // The stop may have come while an await was settling; nothing is written for a stopped runner.
    if (this.signal.aborted) throw new AppError('canceled', 'The job was stopped.');
    const next = this.d.store.transition(job.id, to, patch, detail);
    this.log.info('state', { jobId: job.id, from: job.state, to, remoteJobId: next.remoteJobId });
    this.d.onChanged(next);
    return next;
  }

  private inTransaction<T>(fn: () => T): T {
    return this.d.store.db.transaction(fn)();
  }

  private fail(job: JobRecord, err: AppError): void {
    this.log.warn('job failed', { jobId: job.id, state: job.state, code: err.code, error: err.message });
    try {
      this.transition(job, 'failed', { error: errorOf(err), resumeState: job.state });
    } catch (e) {
      if (!(e instanceof TransitionRefused) && !this.signal.aborted) throw e;
    }
  }
}

/** What a step achieves when it gets anywhere; progress text and bytes do not count. */
function milestone(job: JobRecord | undefined): string {
  if (!job) return '';
  const inputs = job.inputs.map((i) => `${i.uploaded ? 1 : 0}${i.notified ? 1 : 0}`).join('');
  const saved = job.outputs.filter((o) => o.status === 'saved').length;
  return `${job.state}|${job.remoteJobId ?? ''}|${inputs}|${saved}`;
}

function asAppError(e: unknown): AppError {
  if (isAppError(e)) return e;
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'ENOSPC')
    return new AppError('bad-input', 'The disk is full.', {
      action: 'Free some disk space and retry the job.',
      retryable: true,
    });
  if (err?.code === 'EACCES' || err?.code === 'EPERM')
    return new AppError('bad-input', `A file cannot be written: ${err.message}`, {
      action: 'Check that the output folder is writable, then retry the job.',
    });
  return new AppError('internal', e instanceof Error ? e.message : String(e), { cause: e });
}

/** Failures that may pass by themselves: worth waiting for rather than failing the job overnight. */
function isTransient(e: AppError): boolean {
  if (
    e.code === 'job-may-exist' ||
    e.code === 'canceled' ||
    e.code === 'job-failed' ||
    e.code === 'auth-failed'
  )
    return false;
  if (e.code === 'bad-input' && e.message === 'The disk is full.') return false;
  return e.code === 'network' || e.retryable === true;
}

/** The client's 404 answer to a poll; it carries no field of its own, so its wording is matched. */
function isUnknownJob(e: unknown): boolean {
  return isAppError(e) && e.code === 'service' && /does not know job/.test(e.message);
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** The service's record for the idx-th requested mesh: same extension and structures, else the same position. */
export function matchResult(job: JobRecord, idx: number, result: PollResult): MeshResult | undefined {
  const records = result.outputFiles?.meshes ?? [];
  const wanted = job.outputs[idx];
  if (!wanted) return undefined;
  const key = (ext: string, s: string[]) => `${ext.toLowerCase()}|${[...s].sort().join(',')}`;
  const k = key(wanted.extension, wanted.structures);
  const same = records.filter((r) => key(r.extension, r.structures) === k);
  // Two requests alike: the n-th of them takes the n-th record alike.
  const nth = job.outputs.filter((o) => o.idx < idx && key(o.extension, o.structures) === k).length;
  return same[nth] ?? (records.length === job.outputs.length ? records[idx] : undefined);
}

function withNote(
  saved: { path: string; bytes: number },
  record: MeshResult,
): { path: string; bytes: number; note?: string } {
  return record.note !== undefined ? { ...saved, note: record.note } : saved;
}

function clock(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 5);
}
