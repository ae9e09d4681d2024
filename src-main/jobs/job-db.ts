import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AppError, isAppError } from '../../src-shared/errors.js';
import { isTerminal, JOB_STATES } from '../../src-shared/jobs.js';
import { sqliteNativeBinding } from '../platform/native-binding.js';
import { PRIVATE_DIR_MODE } from '../platform/private-files.js';

export type Db = Database.Database;

export const JOB_DB_FILE = 'jobs.sqlite';

/**
 * Schema migrations, applied in order; PRAGMA user_version holds how many ran. A migration is never
 * edited once released: a change is a new entry at the end.
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    batch_id TEXT,
    state TEXT NOT NULL,
    remote_job_id TEXT,
    profile_id TEXT NOT NULL,
    profile_name TEXT NOT NULL,
    -- Addresses of a connection given on the command line (never its secret); NULL for saved profiles.
    connection TEXT,
    -- The service address the remote job was created on.
    service_url TEXT,
    series_id TEXT NOT NULL,
    scan_name TEXT NOT NULL,
    series_description TEXT NOT NULL,
    source_files TEXT NOT NULL,
    meshes TEXT NOT NULL,
    options TEXT,
    deidentify INTEGER NOT NULL,
    output_dir TEXT NOT NULL,
    naming_template TEXT NOT NULL,
    priority INTEGER NOT NULL DEFAULT 0,
    progress TEXT NOT NULL DEFAULT '{}',
    error TEXT,
    -- Where a failed job stood, so that a retry goes on from there when the remote job still exists.
    resume_state TEXT,
    -- Set just before POST /job goes out, cleared when its answer is stored: set after a crash means
    -- the job may exist on the service without the app knowing its id.
    create_sent_at TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    owner TEXT,
    owner_pid INTEGER,
    lease_until INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT
  );
  CREATE INDEX jobs_state ON jobs(state);
  CREATE INDEX jobs_updated ON jobs(updated_at);
  CREATE INDEX jobs_batch ON jobs(batch_id);

  CREATE TABLE job_inputs (
    job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    package_path TEXT,
    extension TEXT,
    bytes INTEGER,
    upload_url TEXT,
    notify_url TEXT,
    uploaded INTEGER NOT NULL DEFAULT 0,
    notified INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (job_id, name)
  );

  CREATE TABLE job_outputs (
    job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    structures TEXT NOT NULL,
    extension TEXT NOT NULL,
    -- pending: not fetched; saved: complete at path.
    status TEXT NOT NULL DEFAULT 'pending',
    path TEXT,
    bytes INTEGER,
    note TEXT,
    PRIMARY KEY (job_id, idx)
  );

  CREATE TABLE job_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    from_state TEXT,
    to_state TEXT,
    detail TEXT
  );
  CREATE INDEX job_events_job ON job_events(job_id, seq);
  `,
  // The user accepted sending the series de-identified although its pixels may show patient data.
  `ALTER TABLE jobs ADD COLUMN accept_burned_in INTEGER NOT NULL DEFAULT 0;`,
  // The patient's name for the opt-in {patient} naming field; kept only when the job's pattern uses it.
  `ALTER TABLE jobs ADD COLUMN patient_name TEXT;`,
  // Submission order. A batch's jobs share one created_at and were then ordered by their random id,
  // so lists and the processing order were shuffled (a review). Rows so far were inserted in order.
  `ALTER TABLE jobs ADD COLUMN submission_seq INTEGER NOT NULL DEFAULT 0;
   UPDATE jobs SET submission_seq = rowid;
   CREATE INDEX jobs_submission ON jobs(submission_seq);`,
  // What the user paused (a batch by its id, the whole queue as '*'): held in memory only, a paused
  // batch started by itself after a restart (a review).
  `CREATE TABLE queue_holds (hold_key TEXT PRIMARY KEY NOT NULL);`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Opens (and creates or migrates) the job database in the data folder. WAL lets the app and the command
 * line read while the other writes. synchronous=NORMAL: a commit survives the process being killed;
 * the commits that must also survive a power cut (the ones whose loss could create a job twice) go
 * through JobStore.durable(), which syncs them, and with them every commit before.
 */
export function openJobDatabase(dataDir: string, opts: { readonly?: boolean } = {}): Db {
  // The data folder holds packed scans and the records that name patients' files: private.
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const file = join(dataDir, JOB_DB_FILE);
  let db: Db;
  // Under Electron the module's build for Electron's ABI; under Node its own (platform/native-binding.ts).
  const nativeBinding = sqliteNativeBinding();
  try {
    db = new Database(file, {
      ...(opts.readonly ? { readonly: true, fileMustExist: true } : {}),
      ...(nativeBinding ? { nativeBinding } : {}),
    });
  } catch (e) {
    if (opts.readonly && (e as { code?: string }).code === 'SQLITE_CANTOPEN')
      throw new AppError('not-found', 'There is no job list yet: no job was ever submitted here.', {
        cause: e,
      });
    throw new AppError('internal', `The job database cannot be opened: ${(e as Error).message}`, {
      action: `Check that ${file} is readable and the disk is not full.`,
      cause: e,
    });
  }
  try {
    db.pragma('busy_timeout = 10000');
    if (!opts.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      // A removed job's patient name, series description and file paths are overwritten with zeros,
      // not left readable in the file's free pages (`scan2mesh remove`).
      db.pragma('secure_delete = ON');
      if (process.platform !== 'win32') chmodSync(file, 0o600);
      migrate(db);
    } else {
      checkVersion(db);
    }
  } catch (e) {
    db.close();
    throw isAppError(e) ? e : unusableDatabase(file, e);
  }
  return db;
}

/** The job list's file could be opened but not used: damaged, read-only, or on a full disk. */
function unusableDatabase(file: string, e: unknown): AppError {
  const code = (e as { code?: string }).code ?? '';
  const damaged = code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT';
  const readOnly = code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN' || code === 'EROFS';
  const what = damaged
    ? 'is damaged (it is not a database scan2mesh can read)'
    : readOnly
      ? 'cannot be written (the file or its disk is read-only)'
      : code === 'SQLITE_FULL'
        ? 'cannot be written: its disk is full'
        : `cannot be used (${(e as Error).message})`;
  return new AppError('internal', `The job list ${file} ${what}.`, {
    action: damaged
      ? `Move ${file} (and any ${JOB_DB_FILE}-wal and -shm beside it) to another folder to start a new, empty job list; keep it in case its jobs are needed.`
      : `Check that the data folder and ${file} are writable and the disk has room, then try again.`,
    cause: e,
  });
}

function checkVersion(db: Db): number {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION)
    throw new AppError('internal', 'The job database was written by a newer version of scan2mesh.', {
      action: 'Update scan2mesh to the newest version.',
    });
  return version;
}

function migrate(db: Db): void {
  // BEGIN IMMEDIATE: two processes opening a fresh database at once migrate it once, one after the other.
  db.transaction(() => {
    const version = checkVersion(db);
    for (let v = version; v < MIGRATIONS.length; v++) {
      db.exec(MIGRATIONS[v] as string);
      db.pragma(`user_version = ${v + 1}`);
    }
    forgetSpentAddresses(db);
  }).immediate();
}

const ENDED = JOB_STATES.filter(isTerminal)
  .map((s) => `'${s}'`)
  .join(', ');

/**
 * Addresses no job can use any more, left by versions that kept them: the upload addresses of jobs
 * that ended, an upload address once its upload is done, a notify address once notified (one not yet
 * used is kept: job-writes.ts says why). A
 * pre-signed upload address grants access to the service's storage until it expires; the store forgets
 * each address as it is spent (job-writes.ts), and this clears what an older version left, at every start.
 */
function forgetSpentAddresses(db: Db): void {
  db.exec(`
    UPDATE job_inputs SET upload_url = NULL
      WHERE upload_url IS NOT NULL AND job_id IN (SELECT id FROM jobs WHERE state IN (${ENDED}));
    UPDATE job_inputs SET upload_url = NULL WHERE upload_url IS NOT NULL AND uploaded = 1;
    UPDATE job_inputs SET notify_url = NULL WHERE notify_url IS NOT NULL AND notified = 1;
  `);
}
