import type { Statement } from 'better-sqlite3';
import { AppError } from '../../src-shared/errors.js';
import { canTransition, isTerminal, type JobState } from '../../src-shared/jobs.js';
import type { Db } from './job-db.js';
import type { InputPatch, JobPatch, NewJob, TransitionExtras } from './job-record.js';
import {
  inputColumns,
  jobRowOf,
  patchColumns,
  stamp,
  type InputRow,
  type JobRow,
  type OutputRow,
} from './job-rows.js';
import { JOB_ROW, type Statements } from './job-statements.js';

/** A transition's commit: the job's row as written, and its inputs and outputs when they were read. */
export interface Written {
  row: JobRow;
  inputs: InputRow[] | undefined;
  outputs: OutputRow[] | undefined;
}

/**
 * The writes of the job store, each a few statements that run inside a transaction JobStore opens:
 * the SQL of a state change, of new jobs, of inputs and other fields, and of the event history.
 */
export class JobWrites {
  /** UPDATEs whose column list depends on the patch, prepared once per column list. */
  private readonly updates = new Map<string, Statement>();

  constructor(
    private readonly db: Db,
    private readonly stmts: Statements,
  ) {}

  /** Moves the job to `to`, refusing what the state machine does not allow; its row as written. */
  transition(
    id: string,
    to: JobState,
    patch: JobPatch,
    detail: Record<string, unknown> | undefined,
    extras: TransitionExtras,
    readChildren: boolean,
  ): Written {
    const row = this.stmts.stateOf.get(id);
    if (!row) throw new AppError('not-found', 'That job no longer exists.');
    const from = row.state as JobState;
    if (!canTransition(from, to))
      throw new TransitionRefused(`job ${id} cannot go from ${from} to ${to}`, from, to);
    if (extras.forgetRemote) {
      this.stmts.forgetInputs.run(id);
      this.stmts.resetOutputs.run(id);
    }
    for (const input of extras.inputs ?? []) this.writeInput(id, input.name, input.patch);
    // A job that ended keeps no pre-signed upload address (it grants access to the service's storage):
    // a retry goes on only with a remote job that has its scan already, or makes a new one
    // (job-errors.ts). Its notify address is kept until used: it grants nothing but starting the job
    // it names, and a notify that failed may still have reached the service, which then has the job
    // under way; a new job in its place would be billed twice (a review).
    if (isTerminal(to)) this.stmts.forgetAddresses.run(id);
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
    const written = jobRowOf(
      this.updateStatement('jobs', [...sets, ...patched.sets], `id = ? RETURNING ${JOB_ROW}`, true).get(
        ...values,
        ...patched.values,
        id,
      ) as unknown[],
    );
    if (from !== to || detail) this.event(id, now, 'state', from, to, detail);
    return {
      row: written,
      inputs: readChildren ? this.stmts.inputs.all(id) : undefined,
      outputs: readChildren ? this.stmts.outputs.all(id) : undefined,
    };
  }

  insert(jobs: NewJob[]): void {
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

  /** Fields other than the state, with an event when one is given. */
  update(id: string, patch: JobPatch, event?: { kind: string; detail?: Record<string, unknown> }): void {
    const now = stamp();
    const { sets, values } = patchColumns(patch);
    this.updateStatement('jobs', ['updated_at = ?', ...sets], 'id = ?').run(now, ...values, id);
    if (event) this.event(id, now, event.kind, null, null, event.detail);
  }

  /**
   * An input's fields. The pre-signed upload address grants access to the service's storage until it
   * expires, and the notify address starts the remote job: each is forgotten in the commit that records
   * it spent (the upload done, the service notified), whatever the caller's patch says of it.
   */
  writeInput(jobId: string, name: string, patch: InputPatch): void {
    const { sets, values } = inputColumns({
      ...patch,
      ...(patch.uploaded === true ? { uploadUrl: null } : {}),
      ...(patch.notified === true ? { notifyUrl: null } : {}),
    });
    if (sets.length === 0) return;
    this.updateStatement('job_inputs', sets, 'job_id = ? AND name = ?').run(...values, jobId, name);
  }

  event(
    id: string,
    at: string,
    kind: string,
    from: JobState | null,
    to: JobState | null,
    detail?: Record<string, unknown>,
  ): void {
    this.stmts.event.run(id, at, kind, from, to, detail ? JSON.stringify(detail) : null);
  }

  /** `returning`: the statement returns rows, as arrays. */
  private updateStatement(table: string, sets: string[], where: string, returning = false): Statement {
    const sql = `UPDATE ${table} SET ${sets.join(', ')} WHERE ${where}`;
    let stmt = this.updates.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      if (returning) stmt.raw(true);
      this.updates.set(sql, stmt);
    }
    return stmt;
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
