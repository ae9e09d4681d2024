import type { Db } from './job-db.js';
import { JOB_COLUMNS, type EventRow, type InputRow, type OutputRow } from './job-rows.js';

/** The job columns as jobRowOf reads them (rows as arrays), for SELECT and RETURNING. */
export const JOB_ROW = JOB_COLUMNS.join(', ');

/** The SQL the job store runs, prepared once per connection (UPDATEs of patches are prepared on demand). */
export function prepareStatements(db: Db) {
  // Job rows come as arrays, in JOB_COLUMNS order (job-rows.ts says why).
  const jobRows = <P extends unknown[]>(where: string) =>
    db.prepare<P, unknown[]>(`SELECT ${JOB_ROW} FROM jobs ${where}`).raw(true);
  return {
    job: jobRows<[string]>('WHERE id = ?'),
    // In submission order: a batch's jobs share one created_at, and their ids are random.
    all: jobRows<[]>('ORDER BY submission_seq'),
    since: jobRows<[string]>('WHERE updated_at >= ? ORDER BY submission_seq'),
    unfinished: jobRows<[]>(
      `WHERE state NOT IN ('done', 'failed', 'canceled') ORDER BY priority DESC, submission_seq`,
    ),
    inBatch: jobRows<[string]>('WHERE batch_id = ? ORDER BY submission_seq'),
    /** What a transition checks before it writes. */
    stateOf: db.prepare<[string], { state: string; started_at: string | null; finished_at: string | null }>(
      'SELECT state, started_at, finished_at FROM jobs WHERE id = ?',
    ),
    inputs: db.prepare<[string], InputRow>('SELECT * FROM job_inputs WHERE job_id = ? ORDER BY name'),
    outputs: db.prepare<[string], OutputRow>('SELECT * FROM job_outputs WHERE job_id = ? ORDER BY idx'),
    allInputs: db.prepare<[], InputRow>('SELECT * FROM job_inputs ORDER BY job_id, name'),
    allOutputs: db.prepare<[], OutputRow>('SELECT * FROM job_outputs ORDER BY job_id, idx'),
    event: db.prepare<[string, string, string, string | null, string | null, string | null]>(
      'INSERT INTO job_events (job_id, at, kind, from_state, to_state, detail) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    events: db.prepare<[string], EventRow>(
      'SELECT seq, at, kind, from_state, to_state, detail FROM job_events WHERE job_id = ? ORDER BY seq',
    ),
    byRemote: db.prepare<[string], { id: string }>('SELECT id FROM jobs WHERE remote_job_id = ?'),
    byPrefix: db.prepare<[string, string], { id: string }>(
      `SELECT id FROM jobs WHERE id LIKE ? ESCAPE '\\' OR remote_job_id LIKE ? ESCAPE '\\'`,
    ),
    maxPriority: db.prepare<[], { p: number | null }>('SELECT MAX(priority) AS p FROM jobs'),
    insertJob: db.prepare(
      `INSERT INTO jobs (id, batch_id, state, profile_id, profile_name, connection, series_id, scan_name,
        series_description, source_files, meshes, options, deidentify, output_dir, naming_template, priority,
        created_at, updated_at, accept_burned_in, patient_name, submission_seq)
       VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
        (SELECT COALESCE(MAX(submission_seq), 0) + 1 FROM jobs))`,
    ),
    insertInput: db.prepare<[string]>(`INSERT INTO job_inputs (job_id, name) VALUES (?, 'cbct')`),
    insertOutput: db.prepare<[string, number, string, string]>(
      'INSERT INTO job_outputs (job_id, idx, structures, extension) VALUES (?, ?, ?, ?)',
    ),
    progress: db.prepare<[string, string, string]>(
      `UPDATE jobs SET progress = ?, updated_at = ? WHERE id = ? AND state NOT IN ('done', 'failed', 'canceled')`,
    ),
    touch: db.prepare<[string, string]>('UPDATE jobs SET updated_at = ? WHERE id = ?'),
    /** A job that ended keeps no pre-signed upload address (job-writes.ts says why). */
    forgetAddresses: db.prepare<[string]>(
      'UPDATE job_inputs SET upload_url = NULL WHERE job_id = ? AND upload_url IS NOT NULL',
    ),
    forgetInputs: db.prepare<[string]>(
      'UPDATE job_inputs SET upload_url = NULL, notify_url = NULL, uploaded = 0, notified = 0 WHERE job_id = ?',
    ),
    resetOutputs: db.prepare<[string]>(
      // The path and size stay: the earlier attempt's file, which this attempt's mesh replaces (output-place.ts).
      `UPDATE job_outputs SET status = 'pending', note = NULL WHERE job_id = ?`,
    ),
    saveOutput: db.prepare<[string, number, string | null, string, number]>(
      `UPDATE job_outputs SET status = 'saved', path = ?, bytes = ?, note = ? WHERE job_id = ? AND idx = ?`,
    ),
    remove: db.prepare<[string]>('DELETE FROM jobs WHERE id = ?'),
    claim: db.prepare<[string, number, number, string, string, number, string]>(
      `UPDATE jobs SET owner = ?, owner_pid = ?, lease_until = ?
       WHERE id = ? AND (owner IS NULL OR owner = ? OR lease_until < ? OR owner = ?)`,
    ),
    heartbeat: db.prepare<[number, string]>('UPDATE jobs SET lease_until = ? WHERE owner = ?'),
    releaseOne: db.prepare<[string, string]>(
      'UPDATE jobs SET owner = NULL, owner_pid = NULL, lease_until = NULL WHERE owner = ? AND id = ?',
    ),
    releaseAll: db.prepare<[string]>(
      'UPDATE jobs SET owner = NULL, owner_pid = NULL, lease_until = NULL WHERE owner = ?',
    ),
    // Prepared once: db.pragma() prepares its statement on every call, and these run per job.
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
    holds: db.prepare<[], string>('SELECT hold_key FROM queue_holds').pluck(),
    hold: db.prepare<[string]>('INSERT OR IGNORE INTO queue_holds (hold_key) VALUES (?)'),
    release: db.prepare<[string]>('DELETE FROM queue_holds WHERE hold_key = ?'),
    syncFull: db.prepare('PRAGMA synchronous = FULL'),
    syncNormal: db.prepare('PRAGMA synchronous = NORMAL'),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
