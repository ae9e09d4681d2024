import type { Transaction } from 'better-sqlite3';
import { isTerminal, type JobState } from '../../src-shared/jobs.js';
import type { Db } from './job-db.js';
import type {
  InputPatch,
  JobEvent,
  JobPatch,
  JobProgress,
  JobRecord,
  NewJob,
  TransitionExtras,
} from './job-record.js';
import {
  groupBy,
  jobRowOf,
  likePrefix,
  stamp,
  toEvent,
  toInput,
  toOutput,
  toRecord,
  withRows,
} from './job-rows.js';
import { prepareStatements, type Statements } from './job-statements.js';
import { JobWrites, type Written } from './job-writes.js';
import { KnownRecords } from './known-records.js';
import { TransitionBatch, type AskedTransition } from './transition-batch.js';

export { TransitionRefused } from './job-writes.js';
// The records the store reads and writes, for its importers.
export type { JobRecord, NewJob } from './job-record.js';

/**
 * A transaction that writes, begun IMMEDIATE: it takes the write lock first, waiting for it as long as
 * busy_timeout allows. A DEFERRED one (better-sqlite3's default) that reads before it writes cannot
 * wait: when another process (the app, a second `scan2mesh submit`) holds or has just committed a
 * write, SQLite refuses the upgrade at once with SQLITE_BUSY ("database is locked"), busy_timeout or
 * not, and the job failed on it. Inside another transaction it is a savepoint, as before.
 */
function writeTransaction<F extends Parameters<Db['transaction']>[0]>(
  db: Db,
  fn: F,
): Transaction<F>['immediate'] {
  return db.transaction(fn).immediate;
}

/** Below this many rows, a list reads each job's inputs and outputs; above, all of them at once. */
const CHILDREN_ONE_BY_ONE = 16;

/**
 * The jobs, their inputs, outputs and event history in SQLite. The store owns its statements (prepared
 * once) and its transactions: every method is one transaction, so a state and what goes with it (the
 * remote job id, the upload addresses) are committed together, and together() puts the writes of many
 * jobs (claims, releases, progress) into one commit. Nobody else sees the database handle.
 */
export class JobStore {
  private readonly stmts: Statements;
  private readonly writes: JobWrites;
  private readonly transitionTx;
  private readonly insertTx;
  private readonly updateTx;
  private readonly setInputTx;
  private readonly saveOutputTx;
  private readonly togetherTx;
  private readonly soon = new TransitionBatch((batch) => this.writeTransitions(batch));
  /**
   * Read records, so that a job is read once between its writes; each write below drops its own, and
   * a transition keeps the record it wrote (its row as the UPDATE returned it).
   */
  private readonly records = new KnownRecords(() => this.dataVersion());

  constructor(private readonly db: Db) {
    this.stmts = prepareStatements(db);
    this.writes = new JobWrites(db, this.stmts);
    this.transitionTx = writeTransaction(
      db,
      (
        id: string,
        to: JobState,
        patch: JobPatch,
        detail: Record<string, unknown> | undefined,
        extras: TransitionExtras,
        readChildren: boolean,
      ) => this.writes.transition(id, to, patch, detail, extras, readChildren),
    );
    this.togetherTx = writeTransaction(db, (fn: () => void) => fn());
    this.insertTx = writeTransaction(db, (jobs: NewJob[]) => this.writes.insert(jobs));
    this.updateTx = writeTransaction(
      db,
      (id: string, patch: JobPatch, event?: { kind: string; detail?: Record<string, unknown> }) =>
        this.writes.update(id, patch, event),
    );
    this.setInputTx = writeTransaction(db, (jobId: string, name: string, patch: InputPatch) => {
      this.writes.writeInput(jobId, name, patch);
      this.stmts.touch.run(stamp(), jobId);
    });
    this.saveOutputTx = writeTransaction(
      db,
      (jobId: string, idx: number, saved: { path: string; bytes: number; note?: string }) => {
        this.stmts.saveOutput.run(saved.path, saved.bytes, saved.note ?? null, jobId, idx);
        const now = stamp();
        this.stmts.touch.run(now, jobId);
        this.writes.event(jobId, now, 'output-saved', null, null, { idx, bytes: saved.bytes });
      },
    );
  }

  get(id: string): JobRecord | undefined {
    const known = this.records.get(id);
    if (known) return known;
    const row = this.stmts.job.get(id);
    return (
      row && this.records.set(toRecord(jobRowOf(row), this.stmts.inputs.all(id), this.stmts.outputs.all(id)))
    );
  }

  /** Every job, oldest first. */
  list(): JobRecord[] {
    return this.withChildren(this.stmts.all.all());
  }

  /** The jobs of one batch, oldest first. */
  batch(batchId: string): JobRecord[] {
    return this.withChildren(this.stmts.inBatch.all(batchId));
  }

  /** Jobs written at or after `since` (an updated_at value), to follow another process's changes. */
  changedSince(since: string): JobRecord[] {
    return this.withChildren(this.stmts.since.all(since));
  }

  unfinished(): JobRecord[] {
    return this.withChildren(this.stmts.unfinished.all());
  }

  /** By local id, by the service's job id, or by a unique prefix of either (as people type them). */
  find(idOrRemote: string): JobRecord | undefined {
    const exact = this.get(idOrRemote) ?? this.get(this.stmts.byRemote.get(idOrRemote)?.id ?? '');
    if (exact) return exact;
    if (idOrRemote.length < 4) return undefined;
    const hits = this.stmts.byPrefix.all(likePrefix(idOrRemote), likePrefix(idOrRemote));
    return hits.length === 1 ? this.get((hits[0] as { id: string }).id) : undefined;
  }

  priorityOf(id: string): number {
    return this.get(id)?.priority ?? 0;
  }

  maxPriority(): number {
    return this.stmts.maxPriority.get()?.p ?? 0;
  }

  /** New jobs, synced to the disk: a submission the user was told about is never lost. */
  insert(jobs: NewJob[]): JobRecord[] {
    this.durably(() => this.insertTx(jobs));
    return jobs.map((j) => this.get(j.id) as JobRecord);
  }

  /**
   * Moves a job to `to` with what goes with it (`patch`, `extras`), in one transaction, and records the
   * event. Refuses a move the state machine does not allow (the caller's bug, or another process got
   * there first).
   */
  transition(
    id: string,
    to: JobState,
    patch: JobPatch = {},
    detail?: Record<string, unknown>,
    extras: TransitionExtras = {},
  ): JobRecord {
    const outcome = this.writeTransitions([{ id, to, patch, detail, extras }])[0];
    if (outcome instanceof Error) throw outcome;
    return outcome as JobRecord;
  }

  /**
   * The same, committed at the end of this turn of the event loop with the other changes asked in it
   * (transition-batch.ts); resolves once committed. `withdrawn`, asked then: true when the change is no
   * longer wanted (its runner was stopped), and it is not written.
   */
  transitionSoon(
    id: string,
    to: JobState,
    patch: JobPatch = {},
    detail?: Record<string, unknown>,
    extras: TransitionExtras = {},
    withdrawn?: () => boolean,
  ): Promise<JobRecord> {
    return this.soon.ask({ id, to, patch, detail, extras }, withdrawn);
  }

  /**
   * State changes in one transaction (synced when one of them asks for it), each in a savepoint of
   * its own: a refused one takes nothing of the others with it.
   */
  private writeTransitions(batch: AskedTransition[]): (JobRecord | Error)[] {
    // The inputs and outputs known before stay true unless the commit changes them: not read again.
    const known = batch.map((t) => this.records.get(t.id));
    for (const t of batch) this.records.wrote(t.id);
    // An end forgets the inputs' addresses (job-writes.ts): they are read again then too.
    const readChildren = batch.map(
      (t, i) =>
        !known[i] || t.extras.forgetRemote === true || (t.extras.inputs?.length ?? 0) > 0 || isTerminal(t.to),
    );
    let outcomes: (Written | Error)[] = [];
    const each = (): void => {
      outcomes = batch.map((t, i) => {
        try {
          return this.transitionTx(t.id, t.to, t.patch, t.detail, t.extras, readChildren[i] as boolean);
        } catch (e) {
          return e instanceof Error ? e : new Error(String(e));
        }
      });
    };
    // One change is its own transaction; more share one, each in a savepoint.
    const run = (): void => (batch.length === 1 ? each() : this.togetherTx(each));
    if (batch.some((t) => t.extras.durable)) this.durably(run);
    else run();
    return outcomes.map((w, i) => {
      if (w instanceof Error) return w;
      const before = known[i] as JobRecord;
      const inputs = w.inputs?.map(toInput) ?? before.inputs;
      const outputs = w.outputs?.map(toOutput) ?? before.outputs;
      return this.records.set(withRows(w.row, inputs, outputs));
    });
  }

  /** Runs `fn` (calls of this store for any number of jobs) as one transaction: one commit for all. */
  together(fn: () => void): void {
    this.togetherTx(fn);
  }

  /** Changes fields other than the state (progress, priority, ...). */
  update(id: string, patch: JobPatch, event?: { kind: string; detail?: Record<string, unknown> }): void {
    this.records.wrote(id);
    this.updateTx(id, patch, event);
  }

  /** Writes a running job's progress; an ended job keeps the progress it ended with. */
  updateProgress(id: string, progress: JobProgress): void {
    this.records.wrote(id);
    this.stmts.progress.run(JSON.stringify(progress), stamp(), id);
  }

  /** Records something that happened to a job without changing it (a retried call, a reused package). */
  note(id: string, kind: string, detail?: Record<string, unknown>): void {
    this.writes.event(id, stamp(), kind, null, null, detail);
  }

  setInput(jobId: string, name: string, patch: InputPatch): void {
    this.records.wrote(jobId);
    this.setInputTx(jobId, name, patch);
  }

  /** A mesh is in its place; synced, as a record lost to a power cut would save the mesh twice. */
  saveOutput(jobId: string, idx: number, saved: { path: string; bytes: number; note?: string }): void {
    this.records.wrote(jobId);
    this.durably(() => this.saveOutputTx(jobId, idx, saved));
  }

  events(id: string): JobEvent[] {
    return this.stmts.events.all(id).map(toEvent);
  }

  remove(id: string): void {
    this.records.wrote(id);
    this.stmts.remove.run(id);
    // The write-ahead log still holds the row's earlier versions until it is checkpointed and cut:
    // moved into the file (where secure_delete zeroed them) now. Busy readers may keep a part of the
    // log for later; it goes at the next checkpoint, and with the log when the last process closes.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /**
   * Takes a job for this process (compare-and-set on the owner), so that the app and the command line
   * never run the same job at once. `takeOver` names an owner that is known to be gone.
   */
  claim(id: string, owner: string, pid: number, leaseMs: number, takeOver?: string): boolean {
    const now = Date.now();
    this.records.wrote(id);
    return this.stmts.claim.run(owner, pid, now + leaseMs, id, owner, now, takeOver ?? owner).changes === 1;
  }

  heartbeat(owner: string, leaseMs: number): void {
    this.records.wrote();
    this.stmts.heartbeat.run(Date.now() + leaseMs, owner);
  }

  release(owner: string, id?: string): void {
    this.records.wrote(id);
    if (id) this.stmts.releaseOne.run(owner, id);
    else this.stmts.releaseAll.run(owner);
  }

  /** What the user paused, kept across restarts (slots.ts PauseGate): batch ids, or the whole queue. */
  holds(): string[] {
    return this.stmts.holds.all();
  }

  setHold(key: string, held: boolean): void {
    (held ? this.stmts.hold : this.stmts.release).run(key);
  }

  /** Another connection committed since the last call (SQLite's data_version). */
  dataVersion(): number {
    return this.stmts.dataVersion.get() as number;
  }

  close(): void {
    this.soon.flush();
    this.db.close();
  }

  /**
   * Runs `fn` (one transaction) so that its commit reaches the disk before it returns, surviving a
   * power cut; the WAL is written in order, so every earlier commit is synced with it.
   */
  private durably<T>(fn: () => T): T {
    this.stmts.syncFull.run();
    try {
      return fn();
    } finally {
      this.stmts.syncNormal.run();
    }
  }

  private withChildren(raw: unknown[][]): JobRecord[] {
    if (raw.length === 0) return [];
    const rows = raw.map(jobRowOf);
    if (rows.length <= CHILDREN_ONE_BY_ONE)
      return rows.map((r) => toRecord(r, this.stmts.inputs.all(r.id), this.stmts.outputs.all(r.id)));
    const inputs = groupBy(this.stmts.allInputs.all());
    const outputs = groupBy(this.stmts.allOutputs.all());
    return rows.map((r) => toRecord(r, inputs.get(r.id) ?? [], outputs.get(r.id) ?? []));
  }
}
