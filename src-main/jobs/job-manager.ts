// Longer than 400 lines: the queue's one owner of runners, leases, live progress and the contract's job
// actions; what it does on disk (packages, leftovers) and the runs themselves are in job-leftovers.ts
// and job-runner.ts.
import { randomBytes, randomUUID } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import {
  isTerminal,
  SubmitJobsRequestSchema,
  type JobView,
  type SubmitJobsRequest,
} from '../../src-shared/jobs.js';
import type { RunningEngine } from '../engine/local-engine.js';
import { silentLogger, type Logger } from '../logging/logger.js';
import { revealWithSystemTools } from '../platform/reveal.js';
import type { ScanService } from '../scans/scan-service.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { AppSettingsStore } from '../settings/app-settings.js';
import type { ProfileStore } from '../settings/profile-store.js';
import { Connections, type ClientTuning, type CustomConnection } from './connections.js';
import { openJobDatabase } from './job-db.js';
import { checkNamingTemplate } from './output-naming.js';
import { jobFraction } from './job-fraction.js';
import {
  pruneLeftovers,
  removePackage,
  removePartialDownloads,
  removeStagedDrops,
  removeStaleDrops,
  sweepPackages,
  type Leftover,
} from './job-leftovers.js';
import {
  DEFAULT_QUEUE_POLICY,
  JobRunner,
  type JobTrouble,
  type QueuePolicy,
  type ScanSource,
} from './job-runner.js';
import { JobStore, toView, type JobProgress, type JobRecord, type NewJob } from './job-store.js';
import { PauseGate, PrioritySlots } from './slots.js';

export interface JobManagerOptions {
  dataDir: string;
  profiles: ProfileStore;
  secrets: SecretStore;
  scans: ScanService;
  logger?: Logger;
  notify?: (title: string, body: string) => void;
  setProgress?: (fraction: number | null) => void;
  limits?: { uploads?: number; downloads?: number };
  localEngine?: () => Promise<RunningEngine>;
  /** Shows a saved mesh in the file manager (the Platform's); the system's tools when absent. */
  revealInFolder?: (path: string) => Promise<void>;
  /** Connections given on the command line; a submission without profileId uses the first. */
  connections?: CustomConnection[];
  /** Tests and benchmarks shorten the waits. */
  policy?: Partial<QueuePolicy>;
  client?: ClientTuning;
  /** How long a crashed process keeps its jobs when its pid cannot be checked (default 60 s). */
  leaseMs?: number;
  /** How often changes written by another process (the app, the command line) are looked for. */
  watchMs?: number;
}

type Listener = (changed: JobView[]) => void;

export interface SubmitOverrides {
  /** Instead of the settings' template. */
  namingTemplate?: string;
  /** The {scan} name per series id, instead of the patient's name. */
  scanNames?: Record<string, string>;
}

const PROGRESS_WRITE_MS = 2_000;
/** A staged drop no job was made from is kept this long: it may be on a web page, about to be submitted. */
const START_DROP_AGE_MS = 24 * 3600_000;
const PRUNE_DROP_AGE_MS = 3600_000;

/** A job that may package its scan again from its files: queued, running, or failed (a retry). */
const mayPackageAgain = (job: JobRecord): boolean => job.state !== 'done' && job.state !== 'canceled';
const EMIT_MS = 100;

/**
 * The job queue of the app and the command line: jobs in SQLite, run here with limits on uploads and
 * downloads, resumed after a restart from where they stood. Two processes can share the data folder:
 * each job is run by one of them at a time (an owner with a lease), and each sees the other's changes.
 */
export class JobManager {
  private readonly owner = `${process.pid}:${randomBytes(6).toString('hex')}`;
  private readonly runners = new Map<string, JobRunner>();
  private readonly listeners = new Set<Listener>();
  private readonly live = new Map<string, JobProgress>();
  /** Steps being retried, per job: shown to the user, not stored (a restart tries afresh). */
  private readonly trouble = new Map<string, JobTrouble>();
  private readonly liveWritten = new Map<string, number>();
  /** Jobs whose live progress changed since it was last written. */
  private readonly liveDirty = new Set<string>();
  private readonly pending = new Set<string>();
  private readonly tracked = new Set<string>();
  private readonly notified = new Set<string>();
  private readonly gate = new PauseGate();
  private readonly slots;
  private readonly timers: NodeJS.Timeout[] = [];
  private emitTimer: NodeJS.Timeout | undefined;
  private lastDataVersion: number;
  private lastSeen: string;
  private closed = false;
  /** Removed by the sweep at start, reported by the next prune(). */
  private swept: Leftover[] = [];

  private constructor(
    private readonly opts: JobManagerOptions,
    private readonly store: JobStore,
    private readonly connections: Connections,
    private readonly settings: AppSettingsStore,
    private readonly policy: QueuePolicy,
    private readonly logger: Logger,
  ) {
    const s = settings.get();
    const uploads = opts.limits?.uploads ?? s.uploads;
    this.slots = {
      prepare: new PrioritySlots(uploads, 'prepare'),
      upload: new PrioritySlots(uploads, 'upload'),
      download: new PrioritySlots(opts.limits?.downloads ?? s.downloads, 'download'),
    };
    this.lastDataVersion = store.dataVersion();
    this.lastSeen = new Date().toISOString();
    const leaseMs = opts.leaseMs ?? 60_000;
    const heartbeat = setInterval(
      () => this.safely(() => this.store.heartbeat(this.owner, leaseMs)),
      leaseMs / 3,
    );
    const watch = setInterval(() => this.safely(() => this.watchOthers()), opts.watchMs ?? 1_000);
    heartbeat.unref();
    watch.unref();
    this.timers.push(heartbeat, watch);
  }

  static async open(opts: JobManagerOptions): Promise<JobManager> {
    const logger = (opts.logger ?? silentLogger).child('jobs');
    const db = openJobDatabase(opts.dataDir);
    const settings = new AppSettingsStore(opts.dataDir, logger);
    const connections = new Connections({
      profiles: opts.profiles,
      secrets: opts.secrets,
      ...(opts.localEngine ? { localEngine: opts.localEngine } : {}),
      ...(opts.connections ? { custom: opts.connections } : {}),
      ...(opts.client ? { tuning: opts.client } : {}),
      logger,
    });
    const manager = new JobManager(
      opts,
      new JobStore(db),
      connections,
      settings,
      { ...DEFAULT_QUEUE_POLICY, ...opts.policy },
      logger,
    );
    await manager.sweepPackages();
    return manager;
  }

  // ---- queries ---------------------------------------------------------------------------------

  list(): JobView[] {
    return this.store.list().map((r) => this.view(r));
  }

  get(id: string): JobView | undefined {
    const r = this.store.get(id);
    return r ? this.view(r) : undefined;
  }

  /** By local id, by the service's job id, or by a unique prefix of either. */
  find(idOrRemote: string): JobView | undefined {
    const r = this.store.find(idOrRemote);
    return r ? this.view(r) : undefined;
  }

  /** Every state change and what came with it, oldest first. */
  history(id: string): ReturnType<JobStore['events']> {
    return this.store.events(id);
  }

  isPaused(): boolean {
    return this.gate.isPaused;
  }

  /** Jobs this process is running now. */
  running(): string[] {
    return [...this.runners.keys()];
  }

  /** Token requests this process sent to every service so far (the goal is one per connection). */
  tokenRequests(): Promise<number> {
    return this.connections.tokenRequests();
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- commands --------------------------------------------------------------------------------

  /**
   * One job per series, one batch for the lot; they start at once (within the limits). The command
   * line names its output folders after the paths it was given, through `overrides`.
   */
  async submit(req: SubmitJobsRequest, overrides: SubmitOverrides = {}): Promise<JobView[]> {
    this.checkOpen();
    const parsed = SubmitJobsRequestSchema.safeParse(req);
    if (!parsed.success)
      throw new AppError('bad-request', parsed.error.issues[0]?.message ?? 'The submission is not valid.');
    const r = parsed.data;
    const conn = this.connections.describe(r.profileId);
    const settings = this.settings.get();
    const outputDir = r.outputDir ?? settings.outputDir;
    const namingTemplate = overrides.namingTemplate ?? settings.namingTemplate;
    const problem = checkNamingTemplate(namingTemplate);
    if (problem) throw new AppError('bad-request', problem);
    const batchId = randomUUID();
    const jobs: NewJob[] = r.seriesIds.map((seriesId) => {
      const summary = this.opts.scans.series(seriesId);
      const files = this.opts.scans.filesOf(seriesId);
      if (!summary || files.length === 0)
        throw new AppError('not-found', 'That scan is no longer open.', {
          action: 'Add the scan again, then submit.',
        });
      const job: NewJob = {
        id: randomUUID(),
        batchId,
        profileId: conn.profileId,
        profileName: conn.profileName,
        seriesId,
        // A scan sent de-identified is not named after its patient in the list or in file paths; the
        // {patient} field (opt-in, in the naming pattern) is the one way to put the name there.
        scanName:
          overrides.scanNames?.[seriesId] ?? scanNameOf(r.deidentify ? '' : summary.patient.name, files),
        seriesDescription:
          summary.seriesDescription.trim() ||
          (summary.seriesNumber !== undefined
            ? `Series ${summary.seriesNumber}`
            : summary.modality || 'Series'),
        // What the user gave (a folder, a zip), not unpacked copies that vanish: enough to find the
        // series again under the same id after a restart, if its package has to be made again.
        sourceFiles: this.opts.scans.inputsOf(seriesId),
        meshes: r.meshes,
        deidentify: r.deidentify,
        ...(r.acceptBurnedIn ? { acceptBurnedIn: true } : {}),
        outputDir,
        namingTemplate,
      };
      if (namingTemplate.includes('{patient}')) {
        const patient = readableName(summary.patient.name);
        if (patient) job.patientName = patient;
      }
      if (conn.connection) job.connection = conn.connection;
      if (r.options) job.options = r.options;
      return job;
    });
    const records = this.store.durable(() => this.store.insert(jobs));
    this.logger.info('submitted', { batchId, jobs: records.length, profileId: conn.profileId });
    for (const rec of records) this.startRunner(rec);
    this.changed(records.map((x) => x.id));
    return records.map((x) => this.view(x));
  }

  /** Stops a job for good (a retry starts it again). The service has no cancel call: its job is left alone. */
  cancel(idOrPrefix: string): JobView {
    const rec = this.require(idOrPrefix);
    const id = rec.id;
    if (isTerminal(rec.state)) return this.view(rec);
    const next = this.store.transition(id, 'canceled', { progress: {} }, { by: 'user' });
    const runner = this.runners.get(id);
    runner?.stop('cancel');
    // Once the runner has let go of it, the package of a canceled job goes (a retry packs it again).
    if (!runner) void this.dropLeftovers(rec);
    this.changed([id]);
    return this.view(next);
  }

  /**
   * Runs a failed or canceled job again. When its remote job still stands (it failed on the network, or
   * was canceled), it goes on with that job; when the service failed it, a new job is created. A job
   * whose creation may have reached the service ('job-may-exist') is created again only when the user
   * says so (`resubmit`): the service may then hold, and bill, two jobs.
   */
  retry(idOrPrefix: string, opts: { resubmit?: boolean } = {}): JobView {
    this.checkOpen();
    const rec = this.require(idOrPrefix);
    const id = rec.id;
    if (rec.state !== 'failed' && rec.state !== 'canceled')
      throw new AppError(
        'bad-request',
        `Only a failed or canceled job can be retried; this one is ${rec.state}.`,
      );
    // (A job canceled while its creation was in flight fails as 'job-may-exist' on its next run.)
    const mayExist = rec.state === 'failed' && rec.error?.code === 'job-may-exist';
    if (mayExist && !opts.resubmit)
      throw new AppError(
        'bad-request',
        'The service may already have this job: its creation was sent and no answer came back.',
        {
          action:
            'Check the service for a job created at that time. If there is none, submit it again explicitly (Submit again in the app, `scan2mesh retry <id> --resubmit`); the service may bill twice.',
        },
      );
    const fresh =
      !rec.remoteJobId ||
      rec.error?.code === 'job-failed' ||
      /does not know job/.test(rec.error?.message ?? '');
    const store = this.store;
    const next = store.db.transaction(() => {
      if (fresh) {
        store.clearRemoteInputs(id);
        store.resetOutputs(id);
      }
      return store.transition(
        id,
        'queued',
        {
          error: null,
          progress: {},
          attempts: rec.attempts + 1,
          ...(fresh ? { remoteJobId: null, serviceUrl: null, createSentAt: null, resumeState: null } : {}),
        },
        { by: 'user', retry: mayExist ? 'resubmitted' : fresh ? 'new job' : 'same job' },
      );
    })();
    this.startRunner(next);
    this.changed([id]);
    return this.view(next);
  }

  /** New limits (the settings changed); jobs waiting for a slot get one at once if there is room. */
  setLimits(limits: { uploads?: number; downloads?: number }): void {
    if (limits.uploads !== undefined) {
      this.slots.prepare.setLimit(limits.uploads);
      this.slots.upload.setLimit(limits.uploads);
    }
    if (limits.downloads !== undefined) this.slots.download.setLimit(limits.downloads);
  }

  pause(): void {
    this.gate.pause();
    this.changed([...this.runners.keys()]);
  }

  resume(): void {
    this.gate.resume();
    this.changed([...this.runners.keys()]);
  }

  /** Holds one batch: its jobs start no new step until it is resumed; the other batches go on. */
  pauseBatch(batchId: string): void {
    this.gate.hold(batchId);
    this.changed(this.batchJobIds(batchId));
  }

  resumeBatch(batchId: string): void {
    this.gate.release(batchId);
    this.changed(this.batchJobIds(batchId));
  }

  private batchJobIds(batchId: string): string[] {
    const ids = this.store
      .list()
      .filter((j) => j.batchId === batchId)
      .map((j) => j.id);
    if (ids.length === 0) throw new AppError('not-found', 'That batch no longer exists.');
    return ids;
  }

  /** The job the user is looking at goes first for its next step, and is polled now. */
  prioritize(idOrPrefix: string): JobView {
    const rec = this.require(idOrPrefix);
    const id = rec.id;
    const priority = this.store.maxPriority() + 1;
    this.store.update(id, { priority });
    for (const s of Object.values(this.slots)) s.reprioritize(id, priority);
    this.runners.get(id)?.pollNow();
    this.changed([id]);
    return this.view({ ...rec, priority });
  }

  /**
   * Removes a job that no process runs (finished, failed, canceled, or left unfinished by a crash) from
   * the list, with its package and any partial download; its saved meshes stay where they are. Says
   * what was removed from the disk.
   */
  async remove(idOrPrefix: string): Promise<Leftover[]> {
    const rec = this.require(idOrPrefix);
    const id = rec.id;
    if (!isTerminal(rec.state) && (this.runners.has(id) || runByOtherProcess(rec, this.owner)))
      throw new AppError('bad-request', 'A job that is still running cannot be removed; cancel it first.', {
        action: 'Cancel the job, then remove it.',
      });
    // A canceled job's runner may still be letting go of its files.
    await this.runners.get(id)?.done;
    this.store.remove(id);
    this.live.delete(id);
    this.tracked.delete(id);
    return [
      ...(await removePackage(this.packagesDir, id)),
      ...(await removePartialDownloads(rec)),
      ...(await removeStagedDrops(this.stagingDir, rec, this.store.list(), mayPackageAgain)),
    ];
  }

  /**
   * Removes what ended jobs left on disk (packages, partial downloads) and packages whose job is gone;
   * the jobs stay in the list. Says what was removed.
   */
  async prune(): Promise<Leftover[]> {
    const removed = [
      ...this.swept.splice(0),
      ...(await pruneLeftovers(
        this.packagesDir,
        () => this.store.list(),
        (id) => this.runners.has(id),
      )),
    ];
    const jobs = this.store.list();
    for (const job of jobs.filter((j) => isTerminal(j.state) && !this.runners.has(j.id)))
      removed.push(...(await removeStagedDrops(this.stagingDir, job, jobs, (o) => !isTerminal(o.state))));
    removed.push(...(await removeStaleDrops(this.stagingDir, () => this.store.list(), PRUNE_DROP_AGE_MS)));
    if (removed.length > 0) this.logger.info('pruned', { items: removed.length });
    return removed;
  }

  async reveal(id: string, outputIndex: number): Promise<void> {
    const view = this.get(id);
    if (!view) throw new AppError('not-found', 'That job no longer exists.');
    const output = view.outputs[outputIndex];
    if (!output) throw new AppError('not-found', 'That mesh has not been saved.');
    await (this.opts.revealInFolder ?? revealWithSystemTools)(output.path);
  }

  /**
   * Takes up every unfinished job nobody else is running (a process that died leaves its jobs) and
   * runs it from where it stood. Jobs of a connection this process cannot reach are left for another.
   */
  async resumeUnfinished(): Promise<void> {
    this.checkOpen();
    const started: string[] = [];
    for (const rec of this.store.unfinished()) {
      if (this.runners.has(rec.id)) continue;
      if (!this.connections.canResolve(rec)) {
        this.logger.info('not resumed here: connection unknown to this process', { jobId: rec.id });
        continue;
      }
      if (this.startRunner(rec)) started.push(rec.id);
    }
    if (started.length > 0) this.logger.info('resumed', { jobs: started.length });
    this.changed(started);
  }

  /** Resolves when every job named is done, failed or canceled (or gone), with their views. */
  waitFor(ids: string[]): Promise<JobView[]> {
    const open = new Set(
      ids.filter((id) => {
        const r = this.store.get(id);
        return r !== undefined && !isTerminal(r.state);
      }),
    );
    const result = (): JobView[] =>
      ids.map((id) => this.get(id)).filter((v): v is JobView => v !== undefined);
    if (open.size === 0) return Promise.resolve(result());
    return new Promise((resolve) => {
      // Only the jobs that changed are looked at: a batch of hundreds must not be read on every change.
      const off = this.onChange((changed) => {
        for (const v of changed) if (isTerminal(v.state)) open.delete(v.id);
        if (open.size === 0) {
          off();
          resolve(result());
        }
      });
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    const runners = [...this.runners.values()];
    for (const r of runners) r.stop('shutdown');
    await Promise.allSettled(runners.map((r) => r.done));
    this.writeLiveProgress(true);
    this.flush();
    if (this.emitTimer) clearTimeout(this.emitTimer);
    this.safely(() => this.store.release(this.owner));
    await this.connections.close();
    this.store.db.close();
  }

  // ---- internals -------------------------------------------------------------------------------

  private get packagesDir(): string {
    return join(this.opts.dataDir, 'packages');
  }

  /** At start: packages of jobs that no longer exist, or that ended done or canceled, are removed. */
  private async sweepPackages(): Promise<void> {
    try {
      const removed = await sweepPackages(
        this.packagesDir,
        () => this.store.list(),
        (id) => this.runners.has(id),
      );
      removed.push(...(await removeStaleDrops(this.stagingDir, () => this.store.list(), START_DROP_AGE_MS)));
      this.swept = removed;
      if (removed.length > 0) this.logger.info('removed stale packages', { count: removed.length });
    } catch (e) {
      this.logger.warn('stale packages could not be removed', { error: String(e) });
    }
  }

  private get stagingDir(): string {
    // Web mode's copies of dropped scans (transport/web-mode.ts puts them here).
    return join(this.opts.dataDir, 'staging');
  }

  /**
   * What a job done or canceled (and no longer run) leaves: a canceled job's package and partial
   * downloads (the done job's package went with its last step), and the staged drops it was made from
   * when no other job may need them again.
   */
  private async dropLeftovers(rec: JobRecord): Promise<void> {
    try {
      const now = this.store.get(rec.id);
      if (!now || (now.state !== 'canceled' && now.state !== 'done')) return;
      if (now.state === 'canceled') {
        await removePackage(this.packagesDir, rec.id);
        await removePartialDownloads(now);
      }
      await removeStagedDrops(this.stagingDir, now, this.store.list(), mayPackageAgain);
    } catch (e) {
      this.logger.warn('a canceled job’s files could not be removed', { jobId: rec.id, error: String(e) });
    }
  }

  private startRunner(rec: JobRecord): boolean {
    if (this.runners.has(rec.id)) return true;
    const takeOver = rec.owner && rec.owner !== this.owner && ownerGone(rec.ownerPid) ? rec.owner : undefined;
    if (!this.store.claim(rec.id, this.owner, process.pid, this.opts.leaseMs ?? 60_000, takeOver)) {
      this.logger.info('job is run by another process', { jobId: rec.id });
      return false;
    }
    const runner = new JobRunner(
      {
        store: this.store,
        scans: this.opts.scans as ScanSource,
        connections: this.connections,
        slots: this.slots,
        gate: this.gate.forKey(rec.batchId),
        packagesDir: this.packagesDir,
        policy: this.policy,
        logger: this.logger,
        onProgress: (id, p) => {
          this.live.set(id, p);
          this.liveDirty.add(id);
          this.changed([id]);
        },
        onTrouble: (id, trouble) => {
          if (trouble) this.trouble.set(id, trouble);
          else this.trouble.delete(id);
          this.changed([id]);
        },
        onChanged: (r) => {
          if (isTerminal(r.state)) this.trouble.delete(r.id);
          this.live.delete(r.id);
          this.liveDirty.delete(r.id);
          this.liveWritten.delete(r.id);
          this.changed([r.id]);
        },
      },
      rec.id,
    );
    this.runners.set(rec.id, runner);
    this.tracked.add(rec.id);
    runner
      .start()
      .catch((e: unknown) => this.logger.error('job runner crashed', { jobId: rec.id, error: String(e) }))
      .finally(() => {
        if (this.runners.get(rec.id) === runner) this.runners.delete(rec.id);
        if (!this.closed) this.safely(() => this.store.release(this.owner, rec.id));
        if (runner.stopped !== 'shutdown') void this.dropLeftovers(rec);
        this.changed([rec.id]);
      });
    return true;
  }

  private view(r: JobRecord): JobView {
    const live = isTerminal(r.state) ? undefined : this.live.get(r.id);
    const v = toView(r, live);
    const trouble = isTerminal(r.state) ? undefined : this.trouble.get(r.id);
    if (trouble) v.trouble = trouble;
    const batchHeld = this.gate.isHeld(r.batchId);
    if (batchHeld && !isTerminal(r.state)) v.batchPaused = true;
    // Only a job that has not started is held; one under way goes on, and its row says so.
    if ((this.gate.isPaused || batchHeld) && r.state === 'queued')
      v.progress = { ...v.progress, stage: 'paused' };
    return v;
  }

  private require(id: string): JobRecord {
    const rec = this.store.get(id) ?? this.store.find(id);
    if (!rec) throw new AppError('not-found', 'That job no longer exists.');
    return rec;
  }

  private checkOpen(): void {
    if (this.closed) throw new AppError('internal', 'The job queue is closed.');
  }

  /** Collects changed ids and tells listeners at most every EMIT_MS, so progress bytes do not flood them. */
  private changed(ids: string[]): void {
    for (const id of ids) this.pending.add(id);
    if (this.emitTimer || this.closed) return;
    this.emitTimer = setTimeout(() => {
      this.emitTimer = undefined;
      this.safely(() => this.flush());
    }, EMIT_MS);
  }

  private flush(): void {
    const ids = [...this.pending];
    this.pending.clear();
    this.writeLiveProgress(false);
    const views: JobView[] = [];
    for (const id of ids) {
      const r = this.store.get(id);
      if (!r) continue;
      views.push(this.view(r));
      this.announce(r);
    }
    this.updateTaskbar();
    if (views.length > 0) for (const l of this.listeners) l(views);
  }

  /** Desktop notifications: a job failed; a batch finished. Checked on the state as it is now. */
  private announce(r: JobRecord): void {
    if (!this.opts.notify || !isTerminal(r.state)) return;
    const key = `${r.id}:${r.finishedAt ?? ''}`;
    if (r.state === 'failed' && !this.notified.has(key) && this.tracked.has(r.id)) {
      this.notified.add(key);
      this.opts.notify('A scan2mesh job failed', `${r.scanName}: ${r.error?.message ?? 'unknown error'}`);
    }
    if (!r.batchId || !this.tracked.has(r.id)) return;
    const batchKey = `batch:${r.batchId}`;
    if (this.notified.has(batchKey)) return;
    const batch = this.store.list().filter((j) => j.batchId === r.batchId);
    if (!batch.every((j) => isTerminal(j.state))) return;
    this.notified.add(batchKey);
    const done = batch.filter((j) => j.state === 'done').length;
    const failed = batch.filter((j) => j.state === 'failed').length;
    this.opts.notify(
      'scan2mesh batch finished',
      `${done} of ${batch.length} job${batch.length === 1 ? '' : 's'} done` +
        (failed ? `, ${failed} failed` : '') +
        '.',
    );
  }

  private updateTaskbar(): void {
    if (!this.opts.setProgress || this.tracked.size === 0) return;
    let sum = 0;
    let active = 0;
    for (const id of this.tracked) {
      const r = this.store.get(id);
      if (!r) continue;
      if (!isTerminal(r.state)) active++;
      sum += jobFraction(r.state, this.live.get(id)?.fraction);
    }
    if (active === 0) {
      this.tracked.clear();
      this.opts.setProgress(null);
    } else {
      this.opts.setProgress(sum / this.tracked.size);
    }
  }

  /** Progress goes to the database now and then, for the other process's list (`scan2mesh status`). */
  private writeLiveProgress(all: boolean): void {
    const now = Date.now();
    for (const id of [...this.liveDirty]) {
      const p = this.live.get(id);
      if (!p) continue;
      if (!all && now - (this.liveWritten.get(id) ?? 0) < PROGRESS_WRITE_MS) continue;
      this.liveWritten.set(id, now);
      this.liveDirty.delete(id);
      const r = this.store.get(id);
      if (r && !isTerminal(r.state)) this.store.update(id, { progress: p });
    }
  }

  /** Changes committed by another process: show them, and stop a job of ours that was canceled there. */
  private watchOthers(): void {
    const v = this.store.dataVersion();
    if (v === this.lastDataVersion) return;
    this.lastDataVersion = v;
    const since = this.lastSeen;
    this.lastSeen = new Date(Date.now() - 1_000).toISOString();
    const changed = this.store.changedSince(since);
    for (const r of changed) {
      if (r.state === 'canceled') this.runners.get(r.id)?.stop('cancel');
    }
    this.changed(changed.map((r) => r.id));
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.logger.error('job queue housekeeping failed', { error: String(e) });
    }
  }
}

/** What the user calls the scan: the patient's name as DICOM writes it ("DOE^JANE"), else its folder's name. */
function scanNameOf(patientName: string, files: string[]): string {
  const name = readableName(patientName);
  if (name) return name;
  const first = files[0] ?? 'scan';
  return files.length === 1
    ? basename(first).replace(/\.[^.]*$/, '') || 'scan'
    : basename(dirname(first)) || 'scan';
}

/** "DOE^JANE" as people write it: "DOE JANE". */
function readableName(dicomName: string): string {
  return dicomName.replace(/\^+/g, ' ').replace(/\s+/g, ' ').trim();
}

/** Another live process holds the job (its lease runs and its pid exists). */
function runByOtherProcess(rec: JobRecord, self: string): boolean {
  if (!rec.owner || rec.owner === self || (rec.leaseUntil ?? 0) < Date.now()) return false;
  return !ownerGone(rec.ownerPid);
}

/** The process that owned a job is gone (crashed or killed) when its pid no longer exists. */
function ownerGone(pid: number | undefined): boolean {
  if (!pid) return true;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
