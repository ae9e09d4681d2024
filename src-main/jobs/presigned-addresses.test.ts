import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEngine } from '../engine/local-engine.js';
import type { LogEntry } from '../logging/memory-logger.test-support.js';
import { createMemoryLogger } from '../logging/memory-logger.test-support.js';
import { clientFor, startTestEngine } from '../service/test-engine.test-support.js';
import { openJobDatabase, JOB_DB_FILE } from './job-db.js';
import {
  DICOM,
  harness,
  MANDIBLE_STL,
  resumeUntilEnded,
  submitScan,
  writeAsAnotherProcess,
  type Harness,
} from './jobs.test-support.js';

/**
 * The pre-signed addresses the service hands out (upload per input, download per mesh) grant access to
 * its storage until they expire. The job database keeps one only while the job may still use it: a job
 * that ended (done, failed, canceled) keeps none, and nothing puts one in the job's events or in the
 * log. A notify address, which only starts the job it names, is kept until used: a notify that failed
 * may have reached the service, and a retry must then go on with that job rather than make (and have
 * billed) another. The database is read directly, as anyone with the file could.
 */

let engine: RunningEngine;
let h: Harness;
let log: LogEntry[];

/** The local engine's addresses: its storage (pre-signed, X-Signature) and its notify endpoint. */
const ADDRESS = /\/storage\/|\/notifyFinishUpload\/|X-Signature|X-Expires/;

/** Every text of the job's rows, in every table, that holds an address of the engine's. */
function addressesStored(dataDir: string, jobId: string): string[] {
  const db = new Database(join(dataDir, JOB_DB_FILE), { readonly: true });
  try {
    const tables = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((t) => t.name)
      .filter((t) => t.startsWith('job'));
    expect(tables.sort()).toEqual(['job_events', 'job_inputs', 'job_outputs', 'jobs']);
    return tables.flatMap((t) =>
      db
        .prepare<[string], Record<string, unknown>>(
          `SELECT * FROM ${t} WHERE ${t === 'jobs' ? 'id' : 'job_id'} = ?`,
        )
        .all(jobId)
        .flatMap((row) => Object.values(row))
        .filter((v): v is string => typeof v === 'string' && ADDRESS.test(v)),
    );
  } finally {
    db.close();
  }
}

/** What the log holds of the addresses: none with its signature (paths alone grant nothing). */
function signaturesLogged(): string[] {
  return log.map((e) => JSON.stringify(e)).filter((line) => /X-Signature|X-Expires/.test(line));
}

/** A job of the engine's created as a crash after POST /job leaves it: its addresses stored, nothing sent. */
async function leftUploading(): Promise<{
  id: string;
  remoteJobId: string;
  uploadUrl: string;
  notifyUrl: string;
}> {
  h.manager.pause();
  const job = await submitScan(h, [join(DICOM, 'multiframe')]);
  await h.manager.close();
  const client = clientFor(engine);
  const created = await client.createJob({ inputs: { cbct: { extension: '.dcm' } }, meshes: MANDIBLE_STL });
  client.close();
  const upload = created.uploads[0]!;
  writeAsAnotherProcess(h.dataDir, (s) => {
    s.transition(job.id, 'preparing');
    s.transition(job.id, 'submitting');
    s.transition(job.id, 'uploading', { remoteJobId: created.jobId }, undefined, {
      inputs: [{ name: 'cbct', patch: { uploadUrl: upload.uploadUrl, notifyUrl: upload.notifyUrl } }],
    });
  });
  // Still live: the addresses are what its resume needs.
  expect(addressesStored(h.dataDir, job.id)).toEqual([upload.uploadUrl, upload.notifyUrl]);
  return { id: job.id, remoteJobId: created.jobId, uploadUrl: upload.uploadUrl, notifyUrl: upload.notifyUrl };
}

/** The engine's notify endpoint. */
const NOTIFY = /\/notifyFinishUpload\//;

beforeEach(async () => {
  ({ engine } = await startTestEngine({ processingDelayMs: 30, stepMs: 0 }));
  log = [];
  h = await harness(engine, { logger: createMemoryLogger(log) });
});

afterEach(async () => {
  await h.close();
  await engine.close();
});

describe('pre-signed addresses in the job database', () => {
  it('done: none kept, none in the events or the log', async () => {
    const job = await submitScan(h, [join(DICOM, 'multiframe')]);
    const [done] = await h.manager.waitFor([job.id]);
    expect(done?.state).toBe('done');
    expect(addressesStored(h.dataDir, job.id)).toEqual([]);
    expect(signaturesLogged()).toEqual([]);
  });

  it('failed after a failed upload: none kept; a retry makes a new job and ends done', async () => {
    // Refused by storage as soon as given: the job fails with both addresses of the failed upload.
    engine.setFaults({ presignedLifetimeSeconds: 0 });
    const job = await submitScan(h, [join(DICOM, 'multiframe')]);
    const [failed] = await h.manager.waitFor([job.id]);
    expect(failed?.state).toBe('failed');
    expect(failed?.error?.message).toMatch(/^Storage refused the upload/);
    expect(addressesStored(h.dataDir, job.id)).toEqual([expect.stringMatching(NOTIFY) as string]);
    engine.setFaults({});
    h.manager.retry(job.id);
    const [done] = await h.manager.waitFor([job.id]);
    expect(done?.state).toBe('done');
    expect(engine.stats.jobsCreated).toBe(2);
    expect(addressesStored(h.dataDir, job.id)).toEqual([]);
    expect(signaturesLogged()).toEqual([]);
  });

  it('failed while processing (the engine refused the job): none kept', async () => {
    engine.setFaults({ failJobs: { message: 'no bone found' } });
    const job = await submitScan(h, [join(DICOM, 'multiframe')]);
    const [failed] = await h.manager.waitFor([job.id]);
    expect(failed?.state).toBe('failed');
    expect(addressesStored(h.dataDir, job.id)).toEqual([]);
    expect(signaturesLogged()).toEqual([]);
  });

  it('canceled while uploading: the upload address not kept; a retry makes a new job, as the old one never got the scan', async () => {
    const { id, remoteJobId, notifyUrl } = await leftUploading();
    const m = await h.open();
    m.cancel(id);
    expect(addressesStored(h.dataDir, id)).toEqual([notifyUrl]);
    m.retry(id);
    const [done] = await m.waitFor([id]);
    expect(done?.state).toBe('done');
    expect(done?.remoteJobId).not.toBe(remoteJobId);
    expect(addressesStored(h.dataDir, id)).toEqual([]);
  });

  it('canceled after its upload, before its notify: the notify address is kept, and a retry goes on with the same job', async () => {
    // A review: a notify whose answer was lost had started the service's job; the retry made and
    // uploaded a second job, which the service ran (and would bill) too.
    const { id, remoteJobId, uploadUrl, notifyUrl } = await leftUploading();
    const client = clientFor(engine);
    await client.upload(uploadUrl, join(DICOM, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm'));
    client.close();
    writeAsAnotherProcess(h.dataDir, (s) => s.setInput(id, 'cbct', { uploaded: true }));
    const m = await h.open();
    m.cancel(id);
    expect(addressesStored(h.dataDir, id)).toEqual([notifyUrl]);
    expect(m.retry(id).remoteJobId).toBe(remoteJobId);
    const [done] = await m.waitFor([id]);
    expect(done?.state).toBe('done');
    expect(done?.remoteJobId).toBe(remoteJobId);
    expect(engine.stats.jobsCreated).toBe(1);
    expect(engine.stats.uploads).toBe(1);
    expect(addressesStored(h.dataDir, id)).toEqual([]);
  });

  it('canceled while processing: none kept; a retry goes on with the same remote job', async () => {
    // An engine that processes for a minute: the job is canceled while it waits.
    await h.close();
    await engine.close();
    ({ engine } = await startTestEngine({ processingDelayMs: 60_000, stepMs: 0 }));
    h = await harness(engine, { logger: createMemoryLogger(log) });
    const job = await submitScan(h, [join(DICOM, 'multiframe')]);
    await new Promise<void>((resolve) => {
      const off = h.manager.onChange(() => {
        if (h.manager.get(job.id)?.state !== 'processing') return;
        off();
        resolve();
      });
    });
    const canceled = h.manager.cancel(job.id);
    expect(canceled.state).toBe('canceled');
    expect(addressesStored(h.dataDir, job.id)).toEqual([]);
    expect(h.manager.retry(job.id).remoteJobId).toBe(canceled.remoteJobId);
    h.manager.cancel(job.id);
    expect(engine.stats.jobsCreated).toBe(1);
  });

  it('kept while the job is live, so that a resume after a kill uploads with them; none once done', async () => {
    const { id, remoteJobId } = await leftUploading();
    const { ended } = await resumeUntilEnded(h, id);
    expect(ended?.state).toBe('done');
    expect(ended?.remoteJobId).toBe(remoteJobId);
    expect(engine.stats.jobsCreated).toBe(1);
    expect(engine.stats.uploads).toBe(1);
    expect(addressesStored(h.dataDir, id)).toEqual([]);
  });

  it('an address an older version left in an ended or spent input is cleared when the database opens', async () => {
    const job = await submitScan(h, [join(DICOM, 'multiframe')]);
    const [done] = await h.manager.waitFor([job.id]);
    expect(done?.state).toBe('done');
    await h.manager.close();
    const raw = new Database(join(h.dataDir, JOB_DB_FILE));
    raw
      .prepare('UPDATE job_inputs SET upload_url = ?, notify_url = ? WHERE job_id = ?')
      .run(
        'http://127.0.0.1:9/storage/x/inputs/cbct?X-Signature=s',
        'http://127.0.0.1:9/notifyFinishUpload/x/cbct',
        job.id,
      );
    raw.close();
    expect(addressesStored(h.dataDir, job.id)).toHaveLength(2);
    openJobDatabase(h.dataDir).close();
    expect(addressesStored(h.dataDir, job.id)).toEqual([]);
  });
});
