import { z } from 'zod';
import { AppError, type AppErrorShape } from '../../src-shared/errors.js';
import {
  canTransition,
  isTerminal,
  JOB_STATES,
  JobErrorSchema,
  MeshChoiceSchema,
  type JobState,
  type JobView,
  type MeshChoice,
} from '../../src-shared/jobs.js';
import type { Db } from './job-db.js';

/** Addresses of a connection given on the command line; the secret is never stored. */
export const StoredConnectionSchema = z.object({
  baseUrl: z.string(),
  authUrl: z.string(),
  audience: z.string(),
  clientId: z.string(),
});
export type StoredConnection = z.infer<typeof StoredConnectionSchema>;

const ProgressSchema = z.object({
  fraction: z.number().min(0).max(1).optional(),
  bytesDone: z.number().nonnegative().optional(),
  bytesTotal: z.number().nonnegative().optional(),
  stage: z.string().optional(),
});
export type JobProgress = z.infer<typeof ProgressSchema>;
const FileListSchema = z.array(z.string());
const MeshListSchema = z.array(MeshChoiceSchema);
const OptionsSchema = z.record(z.string(), z.unknown());
export type JobError = z.infer<typeof JobErrorSchema>;

export interface InputRecord {
  name: string;
  packagePath?: string;
  extension?: string;
  bytes?: number;
  uploadUrl?: string;
  notifyUrl?: string;
  uploaded: boolean;
  notified: boolean;
}

export interface OutputRecord {
  idx: number;
  structures: string[];
  extension: string;
  status: 'pending' | 'saved';
  path?: string;
  bytes?: number;
  note?: string;
}

export interface JobRecord {
  id: string;
  batchId?: string;
  state: JobState;
  remoteJobId?: string;
  profileId: string;
  profileName: string;
  connection?: StoredConnection;
  serviceUrl?: string;
  seriesId: string;
  scanName: string;
  seriesDescription: string;
  sourceFiles: string[];
  meshes: MeshChoice[];
  options?: Record<string, unknown>;
  deidentify: boolean;
  /** Send de-identified even if the pixels may show patient data (burned-in annotation). */
  acceptBurnedIn?: boolean;
  /** The patient's name, for the {patient} naming field: stored only when the naming pattern asks for it. */
  patientName?: string;
  outputDir: string;
  namingTemplate: string;
  priority: number;
  progress: JobProgress;
  error?: JobError;
  resumeState?: JobState;
  createSentAt?: string;
  attempts: number;
  owner?: string;
  ownerPid?: number;
  leaseUntil?: number;
  createdAt: string;
  updatedAt: string;
  startedAt?: string;
  finishedAt?: string;
  inputs: InputRecord[];
  outputs: OutputRecord[];
}

/** What a submission gives; the store fills in the state, progress, timestamps and the rest. */
export type NewJob = Pick<
  JobRecord,
  | 'id'
  | 'batchId'
  | 'profileId'
  | 'profileName'
  | 'connection'
  | 'seriesId'
  | 'scanName'
  | 'seriesDescription'
  | 'sourceFiles'
  | 'meshes'
  | 'options'
  | 'deidentify'
  | 'acceptBurnedIn'
  | 'patientName'
  | 'outputDir'
  | 'namingTemplate'
> & { priority?: number };

/** Fields of the job row that code may change besides its state. */
export interface JobPatch {
  remoteJobId?: string | null;
  serviceUrl?: string | null;
  progress?: JobProgress;
  error?: JobError | null;
  resumeState?: JobState | null;
  createSentAt?: string | null;
  attempts?: number;
  priority?: number;
}

export interface JobEvent {
  seq: number;
  at: string;
  kind: string;
  from?: JobState;
  to?: JobState;
  detail?: Record<string, unknown>;
}

interface JobRow {
  id: string;
  batch_id: string | null;
  state: string;
  remote_job_id: string | null;
  profile_id: string;
  profile_name: string;
  connection: string | null;
  service_url: string | null;
  series_id: string;
  scan_name: string;
  series_description: string;
  source_files: string;
  meshes: string;
  options: string | null;
  deidentify: number;
  accept_burned_in: number;
  patient_name: string | null;
  output_dir: string;
  naming_template: string;
  priority: number;
  progress: string;
  error: string | null;
  resume_state: string | null;
  create_sent_at: string | null;
  attempts: number;
  owner: string | null;
  owner_pid: number | null;
  lease_until: number | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

interface InputRow {
  job_id: string;
  name: string;
  package_path: string | null;
  extension: string | null;
  bytes: number | null;
  upload_url: string | null;
  notify_url: string | null;
  uploaded: number;
  notified: number;
}

interface OutputRow {
  job_id: string;
  idx: number;
  structures: string;
  extension: string;
  status: string;
  path: string | null;
  bytes: number | null;
  note: string | null;
}

const PATCH_COLUMNS: Record<keyof JobPatch, string> = {
  remoteJobId: 'remote_job_id',
  serviceUrl: 'service_url',
  progress: 'progress',
  error: 'error',
  resumeState: 'resume_state',
  createSentAt: 'create_sent_at',
  attempts: 'attempts',
  priority: 'priority',
};

const JSON_PATCH_FIELDS = new Set<keyof JobPatch>(['progress', 'error']);

/** Milliseconds-resolution timestamps that sort as text; strictly increasing within this process. */
let lastStamp = 0;
export function stamp(): string {
  const now = Math.max(Date.now(), lastStamp + 1);
  lastStamp = now;
  return new Date(now).toISOString();
}

/**
 * The jobs, their inputs, outputs and event history in SQLite. Every method is one transaction, so a
 * state and what goes with it (the remote job id, the upload addresses) are committed together.
 */
export class JobStore {
  private readonly stmts;

  constructor(readonly db: Db) {
    this.stmts = {
      job: db.prepare<[string], JobRow>('SELECT * FROM jobs WHERE id = ?'),
      all: db.prepare<[], JobRow>('SELECT * FROM jobs ORDER BY created_at, id'),
      since: db.prepare<[string], JobRow>('SELECT * FROM jobs WHERE updated_at >= ? ORDER BY created_at, id'),
      unfinished: db.prepare<[], JobRow>(
        `SELECT * FROM jobs WHERE state NOT IN ('done', 'failed', 'canceled') ORDER BY priority DESC, created_at, id`,
      ),
      inputs: db.prepare<[string], InputRow>('SELECT * FROM job_inputs WHERE job_id = ? ORDER BY name'),
      outputs: db.prepare<[string], OutputRow>('SELECT * FROM job_outputs WHERE job_id = ? ORDER BY idx'),
      allInputs: db.prepare<[], InputRow>('SELECT * FROM job_inputs ORDER BY job_id, name'),
      allOutputs: db.prepare<[], OutputRow>('SELECT * FROM job_outputs ORDER BY job_id, idx'),
      event: db.prepare(
        'INSERT INTO job_events (job_id, at, kind, from_state, to_state, detail) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      events: db.prepare<
        [string],
        {
          seq: number;
          at: string;
          kind: string;
          from_state: string | null;
          to_state: string | null;
          detail: string | null;
        }
      >('SELECT seq, at, kind, from_state, to_state, detail FROM job_events WHERE job_id = ? ORDER BY seq'),
      byRemote: db.prepare<[string], { id: string }>('SELECT id FROM jobs WHERE remote_job_id = ?'),
      maxPriority: db.prepare<[], { p: number | null }>('SELECT MAX(priority) AS p FROM jobs'),
      priority: db.prepare<[string], { priority: number }>('SELECT priority FROM jobs WHERE id = ?'),
    };
  }

  /**
   * Runs `fn` (one or more writes) so that its commit reaches the disk before it returns, surviving a
   * power cut; the WAL is written in order, so every earlier commit is synced with it.
   */
  durable<T>(fn: () => T): T {
    this.db.pragma('synchronous = FULL');
    try {
      return this.db.transaction(fn)();
    } finally {
      this.db.pragma('synchronous = NORMAL');
    }
  }

  get(id: string): JobRecord | undefined {
    const row = this.stmts.job.get(id);
    if (!row) return undefined;
    return toRecord(row, this.stmts.inputs.all(id), this.stmts.outputs.all(id));
  }

  /** Every job, oldest first. */
  list(): JobRecord[] {
    return this.withChildren(this.stmts.all.all());
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
    const hits = this.db
      .prepare<[string, string], { id: string }>(
        `SELECT id FROM jobs WHERE id LIKE ? ESCAPE '\\' OR remote_job_id LIKE ? ESCAPE '\\'`,
      )
      .all(likePrefix(idOrRemote), likePrefix(idOrRemote));
    return hits.length === 1 ? this.get((hits[0] as { id: string }).id) : undefined;
  }

  priorityOf(id: string): number {
    return this.stmts.priority.get(id)?.priority ?? 0;
  }

  maxPriority(): number {
    return this.stmts.maxPriority.get()?.p ?? 0;
  }

  insert(jobs: NewJob[]): JobRecord[] {
    const now = stamp();
    const insertJob = this.db.prepare(
      `INSERT INTO jobs (id, batch_id, state, profile_id, profile_name, connection, series_id, scan_name,
        series_description, source_files, meshes, options, deidentify, output_dir, naming_template, priority,
        created_at, updated_at, accept_burned_in, patient_name)
       VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertInput = this.db.prepare(`INSERT INTO job_inputs (job_id, name) VALUES (?, 'cbct')`);
    const insertOutput = this.db.prepare(
      'INSERT INTO job_outputs (job_id, idx, structures, extension) VALUES (?, ?, ?, ?)',
    );
    this.db.transaction(() => {
      for (const j of jobs) {
        insertJob.run(
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
        insertInput.run(j.id);
        j.meshes.forEach((m, i) => insertOutput.run(j.id, i, JSON.stringify(m.structures), m.extension));
        this.stmts.event.run(j.id, now, 'created', null, 'queued', null);
      }
    })();
    return jobs.map((j) => this.get(j.id) as JobRecord);
  }

  /**
   * Moves a job to `to` with what goes with it, in one transaction, and records the event. Refuses a
   * move the state machine does not allow (the caller's bug, or another process got there first).
   */
  transition(id: string, to: JobState, patch: JobPatch = {}, detail?: Record<string, unknown>): JobRecord {
    return this.db.transaction(() => {
      const row = this.stmts.job.get(id);
      if (!row) throw new AppError('not-found', 'That job no longer exists.');
      const from = row.state as JobState;
      if (!canTransition(from, to))
        throw new TransitionRefused(`job ${id} cannot go from ${from} to ${to}`, from, to);
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
      appendPatch(patch, sets, values);
      this.db.prepare(`UPDATE jobs SET ${sets.join(', ')} WHERE id = ?`).run(...values, id);
      if (from !== to || detail)
        this.stmts.event.run(id, now, 'state', from, to, detail ? JSON.stringify(detail) : null);
      return this.get(id) as JobRecord;
    })();
  }

  /** Changes fields other than the state (progress, priority, ...). */
  update(id: string, patch: JobPatch, event?: { kind: string; detail?: Record<string, unknown> }): void {
    const sets: string[] = ['updated_at = ?'];
    const now = stamp();
    const values: unknown[] = [now];
    appendPatch(patch, sets, values);
    this.db.transaction(() => {
      this.db.prepare(`UPDATE jobs SET ${sets.join(', ')} WHERE id = ?`).run(...values, id);
      if (event)
        this.stmts.event.run(
          id,
          now,
          event.kind,
          null,
          null,
          event.detail ? JSON.stringify(event.detail) : null,
        );
    })();
  }

  /** Records something that happened to a job without changing it (a retried call, a reused package). */
  note(id: string, kind: string, detail?: Record<string, unknown>): void {
    this.stmts.event.run(id, stamp(), kind, null, null, detail ? JSON.stringify(detail) : null);
  }

  setInput(jobId: string, name: string, patch: Partial<Omit<InputRecord, 'name'>>): void {
    const map: Record<string, string> = {
      packagePath: 'package_path',
      extension: 'extension',
      bytes: 'bytes',
      uploadUrl: 'upload_url',
      notifyUrl: 'notify_url',
      uploaded: 'uploaded',
      notified: 'notified',
    };
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [k, v] of Object.entries(patch)) {
      sets.push(`${map[k] as string} = ?`);
      values.push(typeof v === 'boolean' ? (v ? 1 : 0) : (v ?? null));
    }
    if (sets.length === 0) return;
    this.db.transaction(() => {
      this.db
        .prepare(`UPDATE job_inputs SET ${sets.join(', ')} WHERE job_id = ? AND name = ?`)
        .run(...values, jobId, name);
      this.db.prepare('UPDATE jobs SET updated_at = ? WHERE id = ?').run(stamp(), jobId);
    })();
  }

  /** The remote job is gone or replaced: forget its upload addresses and what was sent to it. */
  clearRemoteInputs(jobId: string): void {
    this.db
      .prepare(
        'UPDATE job_inputs SET upload_url = NULL, notify_url = NULL, uploaded = 0, notified = 0 WHERE job_id = ?',
      )
      .run(jobId);
  }

  saveOutput(jobId: string, idx: number, saved: { path: string; bytes: number; note?: string }): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `UPDATE job_outputs SET status = 'saved', path = ?, bytes = ?, note = ? WHERE job_id = ? AND idx = ?`,
        )
        .run(saved.path, saved.bytes, saved.note ?? null, jobId, idx);
      const now = stamp();
      this.db.prepare('UPDATE jobs SET updated_at = ? WHERE id = ?').run(now, jobId);
      this.stmts.event.run(
        jobId,
        now,
        'output-saved',
        null,
        null,
        JSON.stringify({ idx, bytes: saved.bytes }),
      );
    })();
  }

  /** A job starting over on the service forgets the outputs of the old one (files already saved stay). */
  resetOutputs(jobId: string): void {
    this.db
      .prepare(
        `UPDATE job_outputs SET status = 'pending', path = NULL, bytes = NULL, note = NULL WHERE job_id = ?`,
      )
      .run(jobId);
  }

  events(id: string): JobEvent[] {
    return this.stmts.events.all(id).map((e) => {
      const ev: JobEvent = { seq: e.seq, at: e.at, kind: e.kind };
      if (e.from_state) ev.from = e.from_state as JobState;
      if (e.to_state) ev.to = e.to_state as JobState;
      if (e.detail) ev.detail = JSON.parse(e.detail) as Record<string, unknown>;
      return ev;
    });
  }

  remove(id: string): void {
    this.db.prepare('DELETE FROM jobs WHERE id = ?').run(id);
  }

  /**
   * Takes a job for this process (compare-and-set on the owner), so that the app and the command line
   * never run the same job at once. `takeOver` names an owner that is known to be gone.
   */
  claim(id: string, owner: string, pid: number, leaseMs: number, takeOver?: string): boolean {
    const now = Date.now();
    const r = this.db
      .prepare(
        `UPDATE jobs SET owner = ?, owner_pid = ?, lease_until = ?
         WHERE id = ? AND (owner IS NULL OR owner = ? OR lease_until < ? OR owner = ?)`,
      )
      .run(owner, pid, now + leaseMs, id, owner, now, takeOver ?? owner);
    return r.changes === 1;
  }

  heartbeat(owner: string, leaseMs: number): void {
    this.db.prepare('UPDATE jobs SET lease_until = ? WHERE owner = ?').run(Date.now() + leaseMs, owner);
  }

  release(owner: string, id?: string): void {
    if (id)
      this.db
        .prepare(
          'UPDATE jobs SET owner = NULL, owner_pid = NULL, lease_until = NULL WHERE owner = ? AND id = ?',
        )
        .run(owner, id);
    else
      this.db
        .prepare('UPDATE jobs SET owner = NULL, owner_pid = NULL, lease_until = NULL WHERE owner = ?')
        .run(owner);
  }

  /** Another connection committed since the last call (SQLite's data_version). */
  dataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }

  private withChildren(rows: JobRow[]): JobRecord[] {
    if (rows.length === 0) return [];
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

function appendPatch(patch: JobPatch, sets: string[], values: unknown[]): void {
  for (const [key, value] of Object.entries(patch) as [keyof JobPatch, unknown][]) {
    if (value === undefined) continue;
    sets.push(`${PATCH_COLUMNS[key]} = ?`);
    values.push(value === null ? null : JSON_PATCH_FIELDS.has(key) ? JSON.stringify(value) : value);
  }
}

function groupBy<T extends { job_id: string }>(rows: T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) {
    const list = m.get(r.job_id);
    if (list) list.push(r);
    else m.set(r.job_id, [r]);
  }
  return m;
}

function likePrefix(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`) + '%';
}

/**
 * Columns written once per job (file list, meshes, options, connection) are read on every look at the
 * job: their parsed and checked value is kept by text, so a queue of hundreds does not parse them again
 * and again. Callers treat them as read-only.
 */
const parsedOnce = new Map<string, unknown>();
const PARSED_ONCE_MAX = 4096;

function parseJsonOnce<T>(text: string | null, schema: z.ZodType<T>, what: string): T | undefined {
  if (text === null) return undefined;
  const key = `${what}\u0000${text}`;
  if (parsedOnce.has(key)) return parsedOnce.get(key) as T;
  const value = parseJson(text, schema, what);
  if (parsedOnce.size >= PARSED_ONCE_MAX) parsedOnce.clear();
  parsedOnce.set(key, value);
  return value;
}

function parseJson<T>(text: string | null, schema: z.ZodType<T>, what: string): T | undefined {
  if (text === null) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new AppError('internal', `The job database holds an unreadable ${what}.`, {
      action: 'Remove the job from the list and submit the scan again.',
    });
  return parsed.data;
}

function toRecord(r: JobRow, inputs: InputRow[], outputs: OutputRow[]): JobRecord {
  const state = JOB_STATES.includes(r.state as JobState) ? (r.state as JobState) : 'failed';
  const rec: JobRecord = {
    id: r.id,
    state,
    profileId: r.profile_id,
    profileName: r.profile_name,
    seriesId: r.series_id,
    scanName: r.scan_name,
    seriesDescription: r.series_description,
    sourceFiles: parseJsonOnce(r.source_files, FileListSchema, 'file list') ?? [],
    meshes: parseJsonOnce(r.meshes, MeshListSchema, 'mesh list') ?? [],
    deidentify: r.deidentify === 1,
    outputDir: r.output_dir,
    ...(r.accept_burned_in === 1 ? { acceptBurnedIn: true } : {}),
    ...(r.patient_name !== null ? { patientName: r.patient_name } : {}),
    namingTemplate: r.naming_template,
    priority: r.priority,
    progress: parseJson(r.progress, ProgressSchema, 'progress') ?? {},
    attempts: r.attempts,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    inputs: inputs.map((i) => {
      const rec: InputRecord = { name: i.name, uploaded: i.uploaded === 1, notified: i.notified === 1 };
      if (i.package_path !== null) rec.packagePath = i.package_path;
      if (i.extension !== null) rec.extension = i.extension;
      if (i.bytes !== null) rec.bytes = i.bytes;
      if (i.upload_url !== null) rec.uploadUrl = i.upload_url;
      if (i.notify_url !== null) rec.notifyUrl = i.notify_url;
      return rec;
    }),
    outputs: outputs.map((o) => {
      const rec: OutputRecord = {
        idx: o.idx,
        structures: JSON.parse(o.structures) as string[],
        extension: o.extension,
        status: o.status === 'saved' ? 'saved' : 'pending',
      };
      if (o.path !== null) rec.path = o.path;
      if (o.bytes !== null) rec.bytes = o.bytes;
      if (o.note !== null) rec.note = o.note;
      return rec;
    }),
  };
  if (state !== r.state)
    rec.error = { code: 'internal', message: `The job was in an unknown state "${r.state}".` };
  if (r.batch_id !== null) rec.batchId = r.batch_id;
  if (r.remote_job_id !== null) rec.remoteJobId = r.remote_job_id;
  const connection = parseJsonOnce(r.connection, StoredConnectionSchema, 'connection');
  if (connection) rec.connection = connection;
  if (r.service_url !== null) rec.serviceUrl = r.service_url;
  const options = parseJsonOnce(r.options, OptionsSchema, 'option set');
  if (options) rec.options = options;
  const error = parseJson(r.error, JobErrorSchema, 'error');
  if (error) rec.error = error;
  if (r.resume_state !== null && JOB_STATES.includes(r.resume_state as JobState))
    rec.resumeState = r.resume_state as JobState;
  if (r.create_sent_at !== null) rec.createSentAt = r.create_sent_at;
  if (r.owner !== null) rec.owner = r.owner;
  if (r.owner_pid !== null) rec.ownerPid = r.owner_pid;
  if (r.lease_until !== null) rec.leaseUntil = r.lease_until;
  if (r.started_at !== null) rec.startedAt = r.started_at;
  if (r.finished_at !== null) rec.finishedAt = r.finished_at;
  return rec;
}

/** What the UI shows (src-shared JobViewSchema); `live` overlays progress not yet written. */
export function toView(r: JobRecord, live?: JobProgress): JobView {
  const view: JobView = {
    id: r.id,
    scanName: r.scanName,
    seriesDescription: r.seriesDescription,
    seriesId: r.seriesId,
    meshes: r.meshes,
    profileId: r.profileId,
    profileName: r.profileName,
    deidentify: r.deidentify,
    state: r.state,
    progress: { ...(live ?? r.progress) },
    outputs: r.outputs
      .filter((o) => o.status === 'saved' && o.path !== undefined)
      .map((o) => ({
        path: o.path as string,
        bytes: o.bytes ?? 0,
        structures: o.structures,
        extension: o.extension,
        ...(o.note !== undefined ? { note: o.note } : {}),
      })),
    outputDir: r.outputDir,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    priority: r.priority,
  };
  if (r.remoteJobId) view.remoteJobId = r.remoteJobId;
  if (r.batchId) view.batchId = r.batchId;
  if (r.error) view.error = r.error;
  if (r.startedAt) view.startedAt = r.startedAt;
  if (r.finishedAt) view.finishedAt = r.finishedAt;
  return view;
}

export function errorOf(e: AppErrorShape): JobError {
  const err: JobError = { code: e.code, message: e.message };
  if (e.action !== undefined) err.action = e.action;
  if (e.retryable !== undefined) err.retryable = e.retryable;
  return err;
}
