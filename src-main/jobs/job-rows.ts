import { z } from 'zod';
import { AppError } from '../../src-shared/errors.js';
import { JOB_STATES, JobErrorSchema, MeshChoiceSchema, type JobState } from '../../src-shared/jobs.js';
import {
  ProgressSchema,
  StoredConnectionSchema,
  type InputPatch,
  type InputRecord,
  type JobEvent,
  type JobPatch,
  type JobRecord,
  type OutputRecord,
} from './job-record.js';

/** The job database's rows as SQLite returns them, and their mapping to and from JobRecord. */

export interface JobRow {
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
  submission_seq: number;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/**
 * The columns of a job row in the order the store reads them: job rows are read as arrays (the
 * driver makes an object of 32 named fields per row otherwise, a cost paid on every look at a job)
 * and turned into JobRows by jobRowOf.
 */
export const JOB_COLUMNS = [
  'id',
  'batch_id',
  'state',
  'remote_job_id',
  'profile_id',
  'profile_name',
  'connection',
  'service_url',
  'series_id',
  'scan_name',
  'series_description',
  'source_files',
  'meshes',
  'options',
  'deidentify',
  'accept_burned_in',
  'patient_name',
  'output_dir',
  'naming_template',
  'priority',
  'progress',
  'error',
  'resume_state',
  'create_sent_at',
  'attempts',
  'owner',
  'owner_pid',
  'lease_until',
  'created_at',
  'updated_at',
  'started_at',
  'finished_at',
  'submission_seq',
] as const satisfies readonly (keyof JobRow)[];

/** A job row read as an array in JOB_COLUMNS order. */
export function jobRowOf(v: unknown[]): JobRow {
  return {
    id: v[0],
    batch_id: v[1],
    state: v[2],
    remote_job_id: v[3],
    profile_id: v[4],
    profile_name: v[5],
    connection: v[6],
    service_url: v[7],
    series_id: v[8],
    scan_name: v[9],
    series_description: v[10],
    source_files: v[11],
    meshes: v[12],
    options: v[13],
    deidentify: v[14],
    accept_burned_in: v[15],
    patient_name: v[16],
    output_dir: v[17],
    naming_template: v[18],
    priority: v[19],
    progress: v[20],
    error: v[21],
    resume_state: v[22],
    create_sent_at: v[23],
    attempts: v[24],
    owner: v[25],
    owner_pid: v[26],
    lease_until: v[27],
    created_at: v[28],
    updated_at: v[29],
    started_at: v[30],
    finished_at: v[31],
    submission_seq: v[32],
  } as JobRow;
}

export interface InputRow {
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

export interface OutputRow {
  job_id: string;
  idx: number;
  structures: string;
  extension: string;
  status: string;
  path: string | null;
  bytes: number | null;
  note: string | null;
}

export interface EventRow {
  seq: number;
  at: string;
  kind: string;
  from_state: string | null;
  to_state: string | null;
  detail: string | null;
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

const INPUT_COLUMNS: Record<keyof InputPatch, string> = {
  packagePath: 'package_path',
  extension: 'extension',
  bytes: 'bytes',
  uploadUrl: 'upload_url',
  notifyUrl: 'notify_url',
  uploaded: 'uploaded',
  notified: 'notified',
};

/** Column assignments ("col = ?") and their values for the fields a patch sets. */
export function patchColumns(patch: JobPatch): { sets: string[]; values: unknown[] } {
  const sets: string[] = [];
  const values: unknown[] = [];
  for (const [key, value] of Object.entries(patch) as [keyof JobPatch, unknown][]) {
    if (value === undefined) continue;
    sets.push(`${PATCH_COLUMNS[key]} = ?`);
    values.push(value === null ? null : JSON_PATCH_FIELDS.has(key) ? JSON.stringify(value) : value);
  }
  return { sets, values };
}

export function inputColumns(patch: InputPatch): { sets: string[]; values: unknown[] } {
  const sets: string[] = [];
  const values: unknown[] = [];
  for (const [k, v] of Object.entries(patch) as [keyof InputPatch, unknown][]) {
    if (v === undefined) continue;
    sets.push(`${INPUT_COLUMNS[k]} = ?`);
    values.push(typeof v === 'boolean' ? (v ? 1 : 0) : v);
  }
  return { sets, values };
}

/** Milliseconds-resolution timestamps that sort as text; strictly increasing within this process. */
let lastStamp = 0;
export function stamp(): string {
  const now = Math.max(Date.now(), lastStamp + 1);
  lastStamp = now;
  return new Date(now).toISOString();
}

export function groupBy<T extends { job_id: string }>(rows: T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) {
    const list = m.get(r.job_id);
    if (list) list.push(r);
    else m.set(r.job_id, [r]);
  }
  return m;
}

export function likePrefix(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`) + '%';
}

/**
 * JSON columns are read on every look at a job, and their texts repeat (the same file list, the same
 * few progress stages): the parsed and checked value is kept by text, so a queue of hundreds does not
 * parse them again and again. Callers treat them as read-only.
 */
const parsedOnce = new Map<string, unknown>();
const PARSED_ONCE_MAX = 4096;

function parseJson<T>(text: string | null, schema: z.ZodType<T>, what: string): T | undefined {
  if (text === null) return undefined;
  const key = `${what}\u0000${text}`;
  if (parsedOnce.has(key)) return parsedOnce.get(key) as T;
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
  if (parsedOnce.size >= PARSED_ONCE_MAX) parsedOnce.clear();
  parsedOnce.set(key, parsed.data);
  return parsed.data;
}

const FileListSchema = z.array(z.string());
const MeshListSchema = z.array(MeshChoiceSchema);
const OptionsSchema = z.record(z.string(), z.unknown());
const StructuresSchema = z.array(z.string());

export function toInput(i: InputRow): InputRecord {
  const rec: InputRecord = { name: i.name, uploaded: i.uploaded === 1, notified: i.notified === 1 };
  if (i.package_path !== null) rec.packagePath = i.package_path;
  if (i.extension !== null) rec.extension = i.extension;
  if (i.bytes !== null) rec.bytes = i.bytes;
  if (i.upload_url !== null) rec.uploadUrl = i.upload_url;
  if (i.notify_url !== null) rec.notifyUrl = i.notify_url;
  return rec;
}

export function toOutput(o: OutputRow): OutputRecord {
  const rec: OutputRecord = {
    idx: o.idx,
    structures: parseJson(o.structures, StructuresSchema, 'structure list') ?? [],
    extension: o.extension,
    status: o.status === 'saved' ? 'saved' : 'pending',
  };
  if (o.path !== null) rec.path = o.path;
  if (o.bytes !== null) rec.bytes = o.bytes;
  if (o.note !== null) rec.note = o.note;
  return rec;
}

export function toRecord(r: JobRow, inputs: InputRow[], outputs: OutputRow[]): JobRecord {
  return withRows(r, inputs.map(toInput), outputs.map(toOutput));
}

/** The record of a job row whose inputs and outputs are known already (read-only, shared). */
export function withRows(r: JobRow, inputs: InputRecord[], outputs: OutputRecord[]): JobRecord {
  const state = JOB_STATES.includes(r.state as JobState) ? (r.state as JobState) : 'failed';
  const rec: JobRecord = {
    id: r.id,
    state,
    profileId: r.profile_id,
    profileName: r.profile_name,
    seriesId: r.series_id,
    scanName: r.scan_name,
    seriesDescription: r.series_description,
    sourceFiles: parseJson(r.source_files, FileListSchema, 'file list') ?? [],
    meshes: parseJson(r.meshes, MeshListSchema, 'mesh list') ?? [],
    deidentify: r.deidentify === 1,
    outputDir: r.output_dir,
    ...(r.accept_burned_in === 1 ? { acceptBurnedIn: true } : {}),
    ...(r.patient_name !== null ? { patientName: r.patient_name } : {}),
    namingTemplate: r.naming_template,
    priority: r.priority,
    progress: parseJson(r.progress, ProgressSchema, 'progress') ?? {},
    attempts: r.attempts,
    submissionSeq: r.submission_seq,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    inputs,
    outputs,
  };
  if (state !== r.state)
    rec.error = { code: 'internal', message: `The job was in an unknown state "${r.state}".` };
  if (r.batch_id !== null) rec.batchId = r.batch_id;
  if (r.remote_job_id !== null) rec.remoteJobId = r.remote_job_id;
  const connection = parseJson(r.connection, StoredConnectionSchema, 'connection');
  if (connection) rec.connection = connection;
  if (r.service_url !== null) rec.serviceUrl = r.service_url;
  const options = parseJson(r.options, OptionsSchema, 'option set');
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

export function toEvent(e: EventRow): JobEvent {
  const ev: JobEvent = { seq: e.seq, at: e.at, kind: e.kind };
  if (e.from_state) ev.from = e.from_state as JobState;
  if (e.to_state) ev.to = e.to_state as JobState;
  if (e.detail) ev.detail = JSON.parse(e.detail) as Record<string, unknown>;
  return ev;
}
