import { randomUUID } from 'node:crypto';
import { AppError } from '../../src-shared/errors.js';
import {
  isTerminal,
  SubmitJobsRequestSchema,
  type JobView,
  type SubmitJobsRequest,
} from '../../src-shared/jobs.js';
import { Connections } from '../connections/connection-resolver.js';
import { silentLogger, type Logger } from '../logging/logger.js';
import { revealWithSystemTools } from '../platform/reveal.js';
import { AppSettingsStore } from '../settings/app-settings.js';
import { checkNamingTemplate } from '../settings/output-naming.js';
import { openJobDatabase } from './job-db.js';
import { creationOpen, retryChange, retryRefusal } from './job-errors.js';
import { JobFiles, type DropRelease } from './job-files.js';
import type { JobManagerOptions } from './job-manager-options.js';
import type { Leftover } from './job-leftovers.js';
import { ChangeFeed } from './change-feed.js';
import type { JobEvent, JobRecord } from './job-record.js';
import { DEFAULT_QUEUE_POLICY, type QueuePolicy, type ScanSource } from './job-run.js';
import { RunnerPool } from './runner-pool.js';
import { JobStore } from './job-store.js';
import { toView } from './job-view.js';
import { LiveProgress } from './live-progress.js';
import { newJobs, type SubmitOverrides } from './new-jobs.js';
import { PauseGate, queueSlots } from './slots.js';

export type { SubmitOverrides } from './new-jobs.js';
export type { JobManagerOptions } from './job-manager-options.js';

/**
 * The job queue of the app and the command line: jobs in SQLite, run here with limits on uploads and
 * downloads, resumed after a restart from where they stood. Two processes can share the data folder:
 * each job is run by one of them at a time (an owner with a lease), and each sees the other's changes.
 * The runs are JobRunner's, the files left on disk JobFiles', and who listens (the UI, notifications,
 * the taskbar) is decided outside.
 */
export class JobManager {
  private readonly runners: RunnerPool;
  private readonly live = new LiveProgress();
  private readonly gate: PauseGate;
  private readonly slots;
  private readonly files: JobFiles;
  private readonly feed: ChangeFeed;
  private closed = false;
  private adopting: NodeJS.Timeout | undefined;

  private constructor(
    private readonly opts: JobManagerOptions,
    private readonly store: JobStore,
    private readonly connections: Connections,
    private readonly settings: AppSettingsStore,
    private readonly policy: QueuePolicy,
    private readonly logger: Logger,
  ) {
    this.gate = new PauseGate(opts.keepPauses ? store : undefined);
    const s = settings.get();
    this.slots = queueSlots(opts.limits?.uploads ?? s.uploads, opts.limits?.downloads ?? s.downloads);
    this.files = new JobFiles(opts.dataDir, store, (id) => this.runners.has(id), logger, opts);
    this.feed = new ChangeFeed(
      store,
      (r) => this.view(r),
      () => this.live.write(store, false),
      logger,
      {
        everyMs: opts.watchMs ?? 1_000,
        // A job of ours canceled by the other process stops here too.
        othersChanged: (changed) => {
          for (const r of changed) if (r.state === 'canceled') this.runners.stop(r.id, 'cancel');
        },
      },
      (id) => this.runners.crashOf(id) !== undefined,
    );
    this.runners = new RunnerPool({
      store,
      shared: {
        store,
        scans: opts.scans as ScanSource,
        connections,
        slots: this.slots,
        packagesDir: this.files.packagesDir,
        policy,
        logger,
      },
      gate: this.gate,
      live: this.live,
      changed: (ids, now) => this.feed.changed(ids, now),
      ended: (rec) => void this.files.ended(rec),
      leaseMs: opts.leaseMs ?? 60_000,
      logger,
      safely: (fn) => this.safely(fn),
    });
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
    const policy = { ...DEFAULT_QUEUE_POLICY, ...opts.policy };
    const manager = new JobManager(opts, new JobStore(db), connections, settings, policy, logger);
    await manager.files.sweep();
    if (opts.adoptEveryMs) manager.adoptOrphans(opts.adoptEveryMs);
    return manager;
  }

  /** Takes over, every `everyMs`, the unfinished jobs whose process is gone (see adoptEveryMs). */
  private adoptOrphans(everyMs: number): void {
    this.adopting = setInterval(() => {
      if (this.closed) return;
      this.resumeUnfinished().catch((e: unknown) =>
        this.logger.warn('jobs left by another process not taken over', { error: String(e) }),
      );
    }, everyMs);
    this.adopting.unref();
  }

  // ---- queries ---------------------------------------------------------------------------------

  list(): JobView[] {
    return this.store.list().map((r) => this.view(r));
  }

  get(id: string): JobView | undefined {
    const r = this.store.get(id);
    return r ? this.view(r) : undefined;
  }

  creationUnconfirmed = (id: string): boolean => creationOpen(this.store.get(id));

  /** By local id, by the service's job id, or by a unique prefix of either. */
  find(idOrRemote: string): JobView | undefined {
    const r = this.store.find(idOrRemote);
    return r ? this.view(r) : undefined;
  }

  /** Every job of a batch, oldest first. */
  batch(batchId: string): JobView[] {
    return this.store.batch(batchId).map((r) => this.view(r));
  }

  /** Every state change and what came with it, oldest first. */
  history(id: string): JobEvent[] {
    return this.store.events(id);
  }

  isPaused = (): boolean => this.gate.isPaused;

  /** Jobs this process is running now. */
  running(): string[] {
    return this.runners.ids();
  }

  /** This process ran the job, or runs it now (another process may have run the others). */
  ranHere(id: string): boolean {
    return this.runners.ranHere(id);
  }

  /** Token requests this process sent to every service so far (the goal is one per connection). */
  tokenRequests(): Promise<number> {
    return this.connections.tokenRequests();
  }

  onChange(listener: (changed: JobView[]) => void): () => void {
    return this.feed.onChange(listener);
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
    const jobs = newJobs(r, batchId, conn, { outputDir, namingTemplate }, this.opts.scans, overrides);
    const records = this.store.insert(jobs);
    this.logger.info('submitted', { batchId, jobs: records.length, profileId: conn.profileId });
    this.runners.startAll(records);
    this.feed.changed(
      records.map((x) => x.id),
      true,
    );
    return records.map((x) => this.view(x));
  }

  /** Stops a job for good (a retry starts it again). The service has no cancel call: its job is left alone. */
  cancel(idOrPrefix: string): JobView {
    const rec = this.require(idOrPrefix);
    const id = rec.id;
    if (isTerminal(rec.state)) return this.view(rec);
    const next = this.store.transition(id, 'canceled', { progress: {} }, { by: 'user' });
    // What it left goes once its runner let go (job-files.ts ended), in the process that runs it.
    if (!this.runners.stop(id, 'cancel') && !this.runners.elsewhere(rec)) void this.files.ended(rec);
    this.feed.changed([id], true);
    return this.view(next);
  }

  /**
   * Runs a failed or canceled job again: on with its remote job when that one stands and has the scan,
   * else with a new one (retryNeedsNewRemoteJob says when).
   * A job whose creation may have reached the service ('job-may-exist') is created again only when the
   * user says so (`resubmit`): the service may then hold, and bill, two jobs.
   */
  retry(idOrPrefix: string, opts: { resubmit?: boolean } = {}): JobView {
    this.checkOpen();
    const rec = this.require(idOrPrefix);
    const id = rec.id;
    const refused = retryRefusal(rec, opts.resubmit === true);
    if (refused) throw refused;
    const { patch, detail, extras } = retryChange(rec);
    const next = this.store.transition(id, 'queued', patch, detail, extras);
    this.runners.start(next);
    this.feed.changed([id], true);
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
    this.feed.changed(this.runners.ids(), true);
  }

  resume(): void {
    this.gate.resume();
    this.feed.changed(this.runners.ids(), true);
  }

  /** Holds one batch: its jobs start no new step until it is resumed; the other batches go on. */
  pauseBatch(batchId: string): void {
    this.gate.hold(batchId);
    this.feed.changed(this.batchJobIds(batchId), true);
  }

  resumeBatch(batchId: string): void {
    this.gate.release(batchId);
    this.feed.changed(this.batchJobIds(batchId), true);
  }

  /** The job the user is looking at goes first for its next step, and is polled now. */
  prioritize(idOrPrefix: string): JobView {
    const rec = this.require(idOrPrefix);
    const id = rec.id;
    const priority = this.store.maxPriority() + 1;
    this.store.update(id, { priority });
    for (const s of Object.values(this.slots)) s.reprioritize(id, priority);
    this.runners.pollNow(id);
    this.feed.changed([id]);
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
    if (!isTerminal(rec.state) && (this.runners.has(id) || this.runners.elsewhere(rec)))
      throw new AppError('bad-request', 'A job that is still running cannot be removed; cancel it first.', {
        action: 'Cancel the job, then remove it.',
      });
    // A canceled job's runner may still be letting go of its files.
    await this.runners.settled(id);
    this.store.remove(id);
    this.live.forget(id);
    return this.files.removed(rec);
  }

  /** Web mode's drops holding `paths`, as their session ends or a scan's card goes (job-files.ts). */
  releaseDrops(paths: readonly string[], why?: DropRelease): Promise<void> {
    return this.files.releaseDrops(paths, why);
  }

  /**
   * Removes what ended jobs left on disk (packages, partial downloads) and packages whose job is gone;
   * the jobs stay in the list. Says what was removed.
   */
  prune(): Promise<Leftover[]> {
    return this.files.prune();
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
    const resumable: JobRecord[] = [];
    for (const rec of this.store.unfinished()) {
      // Run here, or by a live process: left be, without a word (adoptOrphans asks every few seconds).
      if (this.runners.has(rec.id) || this.runners.elsewhere(rec)) continue;
      if (!this.connections.canResolve(rec)) {
        this.logger.debug('not resumed here: connection unknown to this process', { jobId: rec.id });
        continue;
      }
      resumable.push(rec);
    }
    const started = this.runners.startAll(resumable);
    if (started.length > 0) this.logger.info('resumed', { jobs: started.length });
    this.feed.changed(started);
  }

  /** Resolves when every job named is done, failed or canceled (or gone), with their views. */
  waitFor(ids: string[]): Promise<JobView[]> {
    return this.feed.waitFor(ids);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.adopting);
    this.feed.stopWatching();
    await this.runners.close();
    this.live.write(this.store, true);
    this.feed.close();
    this.runners.releaseAll();
    await this.connections.close();
    await this.files.settled();
    this.store.close();
  }

  // ---- internals -------------------------------------------------------------------------------

  private batchJobIds(batchId: string): string[] {
    const ids = this.store.batch(batchId).map((j) => j.id);
    if (ids.length === 0) throw new AppError('not-found', 'That batch no longer exists.');
    return ids;
  }

  private view(r: JobRecord): JobView {
    const v = toView(r, this.live.progressOf(r));
    // A runner here stopped on an error it could not record: the view says what it was.
    const crash = this.runners.crashOf(r.id);
    if (crash && !isTerminal(r.state)) v.error = crash;
    const trouble = this.live.troubleOf(r);
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

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.logger.error('job queue housekeeping failed', { error: String(e) });
    }
  }
}
