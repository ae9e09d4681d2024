import type { Statement } from 'better-sqlite3';
import { AppError } from '../../src-shared/errors.js';
import { canTransition, isTerminal, type JobState } from '../../src-shared/jobs.js';
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
  inputColumns,
  likePrefix,
  patchColumns,
  stamp,
  toEvent,
  toRecord,
  type JobRow,
} from './job-rows.js';
import { prepareStatements, type Statements } from './job-statements.js';
import { KnownRecords } from './known-records.js';

// The records the store reads and writes, for its importers.
export type { JobRecord, NewJob } from './job-record.js';

/** Below this many rows, a list reads each job's inputs and outputs; above, all of them at once. */
const CHILDREN_ONE_BY_ONE = 16;

/**
 * The jobs, their inputs, outputs and event history in SQLite. The store owns its statements (prepared
 * once) and its transactions: every method is one transaction, so a state and what goes with it (the
 * remote job id, the upload addresses) are committed together. Nobody else sees the database handle.
 */
export class JobStore {
  private readonly stmts: Statements;
  /** UPDATEs whose column list depends on the patch, prepared once per column list. */
  private readonly updates = new Map<string, Statement>();
  private readonly transitionTx;
  private readonly insertTx;
  private readonly updateTx;
  private readonly setInputTx;
  private readonly saveOutputTx;
  /** Read records, so that a job is read once between its writes; each write below drops its own. */
  private readonly records = new KnownRecords();

  constructor(private readonly db: Db) {
    this.stmts = prepareStatements(db);
    this.transitionTx = db.transaction(
      (
        id: string,
        to: JobState,
        patch: JobPatch,
        detail?: Record<string, unknown>,
        extras?: TransitionExtras,
      ) => this.transitionNow(id, to, patch, detail, extras),
    );
    this.insertTx = db.transaction((jobs: NewJob[]) => this.insertNow(jobs));
    this.updateTx = db.transaction(
      (id: string, patch: JobPatch, event?: { kind: string; detail?: Record<string, unknown> }) => {
        const now = stamp();
        const { sets, values } = patchColumns(patch);
        this.updateStatement('jobs', ['updated_at = ?', ...sets], 'id = ?').run(now, ...values, id);
        if (event) this.event(id, now, event.kind, null, null, event.detail);
      },
    );
    this.setInputTx = db.transaction((jobId: string, name: string, patch: InputPatch) => {
      this.writeInput(jobId, name, patch);
      this.stmts.touch.run(stamp(), jobId);
    });
    this.saveOutputTx = db.transaction(
      (jobId: string, idx: number, saved: { path: string; bytes: number; note?: string }) => {
        this.stmts.saveOutput.run(saved.path, saved.bytes, saved.note ?? null, jobId, idx);
        const now = stamp();
        this.stmts.touch.run(now, jobId);
        this.event(jobId, now, 'output-saved', null, null, { idx, bytes: saved.bytes });
      },
    );
  }

  get(id: string): JobRecord | undefined {
    const known = this.records.get(id, this.dataVersion());
    if (known) return known;
    const row = this.stmts.job.get(id);
    return row && this.records.set(toRecord(row, this.stmts.inputs.all(id), this.stmts.outputs.all(id)));
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
    return this.stmts.priority.get(id)?.priority ?? 0;
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
    const run = (): void => this.transitionTx(id, to, patch, detail, extras);
    this.records.drop(id);
    if (extras.durable) this.durably(run);
    else run();
    return this.get(id) as JobRecord;
  }

  /** Changes fields other than the state (progress, priority, ...). */
  update(id: string, patch: JobPatch, event?: { kind: string; detail?: Record<string, unknown> }): void {
    this.records.drop(id);
    this.updateTx(id, patch, event);
  }

  /** Writes a running job's progress; an ended job keeps the progress it ended with. */
  updateProgress(id: string, progress: JobProgress): void {
    this.records.drop(id);
    this.stmts.progress.run(JSON.stringify(progress), stamp(), id);
  }

  /** Records something that happened to a job without changing it (a retried call, a reused package). */
  note(id: string, kind: string, detail?: Record<string, unknown>): void {
    this.event(id, stamp(), kind, null, null, detail);
  }

  setInput(jobId: string, name: string, patch: InputPatch): void {
    this.records.drop(jobId);
    this.setInputTx(jobId, name, patch);
  }

  /** A mesh is in its place; synced, as a record lost to a power cut would save the mesh twice. */
  saveOutput(jobId: string, idx: number, saved: { path: string; bytes: number; note?: string }): void {
    this.records.drop(jobId);
    this.durably(() => this.saveOutputTx(jobId, idx, saved));
  }

  events(id: string): JobEvent[] {
    return this.stmts.events.all(id).map(toEvent);
  }

  remove(id: string): void {
    this.records.drop(id);
    this.stmts.remove.run(id);
  }

  /**
   * Takes a job for this process (compare-and-set on the owner), so that the app and the command line
   * never run the same job at once. `takeOver` names an owner that is known to be gone.
   */
  claim(id: string, owner: string, pid: number, leaseMs: number, takeOver?: string): boolean {
    const now = Date.now();
    this.records.drop(id);
    return this.stmts.claim.run(owner, pid, now + leaseMs, id, owner, now, takeOver ?? owner).changes === 1;
  }

  heartbeat(owner: string, leaseMs: number): void {
    this.records.drop();
    this.stmts.heartbeat.run(Date.now() + leaseMs, owner);
  }

  release(owner: string, id?: string): void {
    this.records.drop(id);
    if (id) this.stmts.releaseOne.run(owner, id);
    else this.stmts.releaseAll.run(owner);
  }

  /** Another connection committed since the last call (SQLite's data_version). */
  dataVersion(): number {
    return this.stmts.dataVersion.get() as number;
  }

  close(): void {
    this.db.close();
  }

  /**
   * Runs `fn` (one transaction) so that its commit reaches the disk before it returns, surviving a
   * power cut; the WAL is written in order, so every earlier commit is synced with it.
   */
  private durably(fn: () => void): void {
    this.stmts.syncFull.run();
    try {
      fn();
    } finally {
      this.stmts.syncNormal.run();
    }
  }

  private transitionNow(
    id: string,
    to: JobState,
    patch: JobPatch,
    detail: Record<string, unknown> | undefined,
    extras: TransitionExtras | undefined,
  ): void {
    const row = this.stmts.job.get(id);
    if (!row) throw new AppError('not-found', 'That job no longer exists.');
    const from = row.state as JobState;
    if (!canTransition(from, to))
      throw new TransitionRefused(`job ${id} cannot go from ${from} to ${to}`, from, to);
    if (extras?.forgetRemote) {
      this.stmts.forgetInputs.run(id);
      this.stmts.resetOutputs.run(id);
    }
    for (const input of extras?.inputs ?? []) this.writeInput(id, input.name, input.patch);
    const now = stamp();
    const sets: string[] = ['state = ?', 'updated_at = ?'];
    const values: unknown[] = [to, now];
    if (!row.started_at && to !== 'queued' && to !== 'canceled') {
      sets.push('started_at = ?');
      values.push(now);
    }
    if (isTerminal(to)) {
      sets.push('finished_at = ?');
      values.push(now);
    } else if (row.finished_at) {
      sets.push('finished_at = NULL');
    }
    const patched = patchColumns(patch);
    this.updateStatement('jobs', [...sets, ...patched.sets], 'id = ?').run(...values, ...patched.values, id);
    if (from !== to || detail) this.event(id, now, 'state', from, to, detail);
  }

  private insertNow(jobs: NewJob[]): void {
    const now = stamp();
    for (const j of jobs) {
      this.stmts.insertJob.run(
        j.id,
        j.batchId ?? null,
        j.profileId,
        j.profileName,
        j.connection ? JSON.stringify(j.connection) : null,
        j.seriesId,
        j.scanName,
        j.seriesDescription,
        JSON.stringify(j.sourceFiles),
        JSON.stringify(j.meshes),
        j.options ? JSON.stringify(j.options) : null,
        j.deidentify ? 1 : 0,
        j.outputDir,
        j.namingTemplate,
        j.priority ?? 0,
        now,
        now,
        j.acceptBurnedIn ? 1 : 0,
        j.patientName ?? null,
      );
      this.stmts.insertInput.run(j.id);
      j.meshes.forEach((m, i) =>
        this.stmts.insertOutput.run(j.id, i, JSON.stringify(m.structures), m.extension),
      );
      this.event(j.id, now, 'created', null, 'queued');
    }
  }

  private writeInput(jobId: string, name: string, patch: InputPatch): void {
    const { sets, values } = inputColumns(patch);
    if (sets.length === 0) return;
    this.updateStatement('job_inputs', sets, 'job_id = ? AND name = ?').run(...values, jobId, name);
  }

  private updateStatement(table: string, sets: string[], where: string): Statement {
    const sql = `UPDATE ${table} SET ${sets.join(', ')} WHERE ${where}`;
    let stmt = this.updates.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.updates.set(sql, stmt);
    }
    return stmt;
  }

  private event(
    id: string,
    at: string,
    kind: string,
    from: JobState | null,
    to: JobState | null,
    detail?: Record<string, unknown>,
  ): void {
    this.stmts.event.run(id, at, kind, from, to, detail ? JSON.stringify(detail) : null);
  }

  private withChildren(rows: JobRow[]): JobRecord[] {
    if (rows.length === 0) return [];
    if (rows.length <= CHILDREN_ONE_BY_ONE)
      return rows.map((r) => toRecord(r, this.stmts.inputs.all(r.id), this.stmts.outputs.all(r.id)));
    const inputs = groupBy(this.stmts.allInputs.all());
    const outputs = groupBy(this.stmts.allOutputs.all());
    return rows.map((r) => toRecord(r, inputs.get(r.id) ?? [], outputs.get(r.id) ?? []));
  }
}

export class TransitionRefused extends AppError {
  constructor(
    message: string,
    readonly from: JobState,
    readonly to: JobState,
  ) {
    super('internal', message);
  }
}
