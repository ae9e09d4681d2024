import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEngine } from '../engine/local-engine.js';
import { clientFor, startTestEngine } from '../service/test-engine.test-support.js';
import type { JobStore } from './job-store.js';
import {
  DICOM,
  FAST,
  harness,
  MANDIBLE_STL,
  resumeUntilEnded,
  STATES_OF_A_RUN,
  statesOf,
  submitScan,
  writeAsAnotherProcess,
  type Harness,
} from './jobs.test-support.js';

/**
 * How a job goes on from the rows a crash leaves behind. The crash states are written to the database
 * directly (exactly what a killed process leaves); the SIGKILL test of the real command line is
 * crash.test.ts.
 */

let engine: RunningEngine;
let h: Harness;

/** A job submitted while paused, then the manager closed: a queued job in the database. */
async function parkedJob(): Promise<string> {
  h.manager.pause();
  const job = await submitScan(h, [join(DICOM, 'multiframe')]);
  await h.manager.close();
  return job.id;
}

/** Submits the multi-frame fixture and resolves once the service is processing it. */
async function submitUntilProcessing(): Promise<{ id: string }> {
  const job = await submitScan(h, [join(DICOM, 'multiframe')]);
  await new Promise<void>((resolve) => {
    const off = h.manager.onChange(() => {
      if (h.manager.get(job.id)?.state === 'processing') {
        off();
        resolve();
      }
    });
  });
  return job;
}

/** Writes a crash state into the database as another process would have. */
function crashState(edit: (store: JobStore) => void): void {
  writeAsAnotherProcess(h.dataDir, edit);
}

/** What a crash leaves after POST /job was answered and its addresses stored, before the upload ended. */
function crashAfterCreate(
  id: string,
  remoteJobId: string,
  upload: { uploadUrl: string; notifyUrl: string },
): void {
  crashState((s) => {
    s.transition(id, 'preparing');
    s.transition(id, 'submitting');
    s.setInput(id, 'cbct', { uploadUrl: upload.uploadUrl, notifyUrl: upload.notifyUrl });
    s.transition(id, 'uploading', { remoteJobId });
  });
}

/** What a crash leaves between POST /job going out and its answer being stored. */
function createAnswerLost(s: JobStore, id: string): void {
  s.transition(id, 'preparing');
  s.transition(id, 'submitting', { createSentAt: new Date().toISOString() });
}

describe('resuming from the states a crash leaves', () => {
  beforeEach(async () => {
    ({ engine } = await startTestEngine({ processingDelayMs: 30, stepMs: 0 }));
  });
  afterEach(async () => {
    await h.close();
    await engine.close();
  });

  describe('on the local engine (ours: a job may be created again, nothing is billed)', () => {
    beforeEach(async () => {
      // No command-line connection: the active profile, the local engine, is used.
      h = await harness(engine, { connections: [], localEngine: async () => engine });
    });

    it('creates the job again when the answer to POST /job was never stored', async () => {
      const id = await parkedJob();
      crashState((s) => createAnswerLost(s, id));
      const { m, ended: done } = await resumeUntilEnded(h, id);
      expect(done?.state).toBe('done');
      expect(done?.profileId).toBe('local-engine');
      expect(m.history(id).some((e) => e.kind === 'recreate')).toBe(true);
    });

    it.each(['uploading', 'notifying'] as const)(
      'creates the job again when it was %s for an engine that is gone',
      async (state) => {
        const id = await parkedJob();
        crashState((s) => {
          s.transition(id, 'preparing');
          s.transition(id, 'submitting');
          s.setInput(id, 'cbct', {
            uploadUrl: 'http://127.0.0.1:9/storage/x/inputs/cbct?X-Expires=1',
            notifyUrl: 'http://127.0.0.1:9/n',
          });
          s.transition(id, 'uploading', { remoteJobId: '00000000-0000-4000-8000-000000000000' });
          // Killed after the upload, before the notification (resume spun on this one forever).
          if (state === 'notifying') {
            // As the runner records it: the used pre-signed address is forgotten with the upload.
            s.setInput(id, 'cbct', { uploaded: true, uploadUrl: null });
            s.transition(id, 'notifying');
          }
        });
        const { ended: done } = await resumeUntilEnded(h, id);
        expect(done?.state).toBe('done');
        expect(done?.remoteJobId).not.toBe('00000000-0000-4000-8000-000000000000');
        expect(engine.stats.jobsCreated).toBe(1);
      },
    );

    it('keeps no upload or notify address in the database once they are spent', async () => {
      const job = await submitScan(h, [join(DICOM, 'multiframe')]);
      const [done] = await h.manager.waitFor([job.id]);
      expect(done?.state).toBe('done');
      const db = new Database(join(h.dataDir, 'jobs.sqlite'), { readonly: true });
      try {
        const row = db
          .prepare('SELECT upload_url, notify_url, uploaded FROM job_inputs WHERE job_id = ?')
          .get(job.id);
        expect(row).toMatchObject({ upload_url: null, notify_url: null, uploaded: 1 });
      } finally {
        db.close();
      }
    });

    it('tells a refusal of the local engine in its own words, as final', async () => {
      engine.setFaults({ failJobs: { message: 'No soft tissue can be found: the scan shows no air.' } });
      const job = await submitScan(h, [join(DICOM, 'multiframe')]);
      const [failed] = await h.manager.waitFor([job.id]);
      engine.setFaults({});
      expect(failed?.error).toMatchObject({
        code: 'job-failed',
        message: 'The local engine made no model: No soft tissue can be found: the scan shows no air.',
        retryable: false,
      });
      expect(failed?.error?.action).toMatch(
        /^Change what the reason names \(the scan, or a structure it cannot make\)/,
      );
    });

    it('saves the meshes the local engine made and fails the job naming the one it refused, as final', async () => {
      const refusal = 'No soft tissue can be found: the scan shows no air. Leave soft_tissue out.';
      engine.setFaults({ outputStatusAt: { 1: { status: 'Refused', message: refusal } } });
      const job = await submitScan(
        h,
        [join(DICOM, 'multiframe')],
        [
          { structures: ['skull'], extension: '.stl' },
          { structures: ['soft_tissue'], extension: '.stl' },
        ],
      );
      const [failed] = await h.manager.waitFor([job.id]);
      engine.setFaults({});
      expect(failed?.error).toMatchObject({
        code: 'job-failed',
        message:
          'The local engine made 1 of the 2 meshes. soft_tissue.stl was refused: ' +
          'No soft tissue can be found: the scan shows no air. Leave soft_tissue out. The mesh it made is saved.',
        retryable: false,
      });
      expect(failed?.outputs.map((o) => o.structures)).toEqual([['skull']]);
    });

    it("is taken over by the app's queue once the process that ran it is gone, without a resume", async () => {
      const id = await parkedJob();
      // A command line killed while it ran the job: its pid is gone, its lease still runs.
      const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
      crashState((s) => {
        s.transition(id, 'preparing');
        expect(s.claim(id, 'a-killed-command', gone, 60_000)).toBe(true);
      });
      const app = await h.open({ adoptEveryMs: 50 });
      const [done] = await app.waitFor([id]);
      expect(done?.state).toBe('done');
    });

    it('starts over from the package when the engine no longer knows a job it was downloading', async () => {
      const id = await parkedJob();
      // Killed while downloading from an engine that ended with that process (the command line's).
      crashState((s) => {
        s.transition(id, 'processing', { remoteJobId: '00000000-0000-4000-8000-00000000dead' });
        s.transition(id, 'downloading');
      });
      const { m, ended: done } = await resumeUntilEnded(h, id);
      expect(done?.state).toBe('done');
      expect(done?.remoteJobId).not.toBe('00000000-0000-4000-8000-00000000dead');
      expect(statesOf(m, id)).toEqual(['processing', 'downloading', 'failed', 'queued', ...STATES_OF_A_RUN]);
    });

    it('starts over from the package when the engine no longer knows a processing job', async () => {
      const id = await parkedJob();
      crashState((s) => {
        s.transition(id, 'processing', { remoteJobId: '00000000-0000-4000-8000-00000000dead' });
      });
      const { m, ended: done } = await resumeUntilEnded(h, id);
      expect(done?.state).toBe('done');
      expect(statesOf(m, id)).toEqual(['processing', 'failed', 'queued', ...STATES_OF_A_RUN]);
    });
  });

  describe('on a remote service (never created again without the user)', () => {
    beforeEach(async () => {
      h = await harness(engine);
    });

    it('fails a job whose creation outcome is unknown, saying what to check', async () => {
      const id = await parkedJob();
      crashState((s) => createAnswerLost(s, id));
      const { m, ended: failed } = await resumeUntilEnded(h, id);
      expect(failed?.state).toBe('failed');
      expect(failed?.error?.code).toBe('job-may-exist');
      expect(engine.stats.jobsCreated).toBe(0);
      // The user decides: a plain retry is refused, saying how to submit again; a resubmit creates it.
      expect(() => m.retry(id)).toThrow(/may already have this job/);
      expect(engine.stats.jobsCreated).toBe(0);
      m.retry(id, { resubmit: true });
      const [done] = await m.waitFor([id]);
      expect(done?.state).toBe('done');
      expect(engine.stats.jobsCreated).toBe(1);
    });

    it('fails a processing job the service does not know, without creating it again', async () => {
      const id = await parkedJob();
      crashState((s) =>
        s.transition(id, 'processing', { remoteJobId: '00000000-0000-4000-8000-00000000dead' }),
      );
      const polls = engine.stats.polls;
      const { ended: failed } = await resumeUntilEnded(h, id);
      expect(failed?.state).toBe('failed');
      expect(failed?.error?.code).toBe('job-unknown');
      expect(engine.stats.jobsCreated).toBe(0);
      // One "no such job" is not taken as the last word: the service is asked again for a while
      // (unknownJobGraceMs), as a job just created may not be visible to all of its servers yet.
      expect(engine.stats.polls - polls).toBeGreaterThan(1);
    });

    it('sends an upload that was not notified again, then notifies: one remote job', async () => {
      const id = await parkedJob();
      // The remote job as a crash after POST /job left it: created, its addresses stored, nothing sent.
      const client = clientFor(engine);
      const created = await client.createJob({
        inputs: { cbct: { extension: '.dcm' } },
        meshes: MANDIBLE_STL,
      });
      client.close();
      const upload = created.uploads[0]!;
      crashAfterCreate(id, created.jobId, upload);
      const { ended: done } = await resumeUntilEnded(h, id);
      expect(done?.state).toBe('done');
      expect(done?.remoteJobId).toBe(created.jobId);
      expect(engine.stats.jobsCreated).toBe(1);
      expect(engine.stats.uploads).toBe(1);
      expect(engine.stats.notifies).toBe(1);
    });

    it('creates a new job when an upload address given by an earlier run expired', async () => {
      const id = await parkedJob();
      // A crash after POST /job left the remote job and its addresses; they expired meanwhile.
      engine.setFaults({ presignedLifetimeSeconds: 0 });
      const client = clientFor(engine);
      const created = await client.createJob({
        inputs: { cbct: { extension: '.dcm' } },
        meshes: MANDIBLE_STL,
      });
      client.close();
      engine.setFaults({});
      const upload = created.uploads[0]!;
      crashAfterCreate(id, created.jobId, upload);
      const { m, ended: done } = await resumeUntilEnded(h, id);
      expect(done?.state).toBe('done');
      expect(done?.remoteJobId).not.toBe(created.jobId);
      const expired = m.history(id).filter((e) => e.detail?.reason === 'the upload address expired');
      expect(expired).toHaveLength(1);
      expect(engine.stats.jobsCreated).toBe(2);
    });

    it("makes one new job at most for an earlier run's expired address, whatever storage does next", async () => {
      // A review: a long upload whose address expired midway made four billed jobs in a row.
      const id = await parkedJob();
      engine.setFaults({ presignedLifetimeSeconds: 0 });
      const client = clientFor(engine);
      const created = await client.createJob({
        inputs: { cbct: { extension: '.dcm' } },
        meshes: MANDIBLE_STL,
      });
      client.close();
      crashAfterCreate(id, created.jobId, created.uploads[0]!);
      // Storage goes on refusing: the new job's address too.
      const { ended } = await resumeUntilEnded(h, id);
      expect(ended?.state).toBe('failed');
      expect(ended?.error?.message).toMatch(/^Storage refused the upload .*no other job was created/);
      expect(engine.stats.jobsCreated).toBe(2);
    });

    it('creates no other job on its own when storage refuses an address just given', async () => {
      engine.setFaults({ presignedLifetimeSeconds: 0 });
      const job = await submitScan(h, [join(DICOM, 'multiframe')]);
      const [failed] = await h.manager.waitFor([job.id]);
      expect(failed?.state).toBe('failed');
      expect(failed?.error?.message).toMatch(
        new RegExp(
          `^Storage refused the upload \\(403: .*\\) \\d+ s after the service gave its address\\. The service job ${failed!.remoteJobId} is left without its scan; no other job was created`,
        ),
      );
      expect(failed?.error?.action).toMatch(/clock and date, then retry the job/);
      expect(engine.stats.jobsCreated).toBe(1);
      // Retried by the user: the refused address is no longer fresh, so a new job and address.
      engine.setFaults({});
      h.manager.retry(job.id);
      const [done] = await h.manager.waitFor([job.id]);
      expect(done?.state).toBe('done');
      expect(engine.stats.jobsCreated).toBe(2);
    });
  });
});

describe('when the network goes away', () => {
  it('waits for the service to come back, then goes on with the same remote job', async () => {
    const { mkdtemp } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const engineDir = await mkdtemp(join(tmpdir(), 'scan2mesh-engine-'));
    const settings = {
      dataDir: engineDir,
      clientSecret: 'a-stable-secret-for-this-test',
      processingDelayMs: 400,
      stepMs: 0,
    };
    ({ engine } = await startTestEngine(settings));
    const port = engine.port;
    h = await harness(engine);
    const job = await submitUntilProcessing();
    const remoteJobId = h.manager.get(job.id)?.remoteJobId;
    await engine.close();
    // Down long enough for the client's own retries to give up and the queue to wait its turn.
    await new Promise((res) => setTimeout(res, 1_500));
    const waiting = h.manager.get(job.id);
    expect(waiting?.state).toBe('processing');
    expect(waiting?.progress.stage).toMatch(/^No connection; trying again at \d\d:\d\d \(in \d+ s\)$/);
    ({ engine } = await startTestEngine({ ...settings, port }));
    const [done] = await h.manager.waitFor([job.id]);
    expect(done?.state).toBe('done');
    expect(done?.remoteJobId).toBe(remoteJobId);
    expect(engine.stats.jobsCreated).toBe(0);
    expect(h.manager.history(job.id).some((e) => e.kind === 'trouble' && e.detail?.code === 'network')).toBe(
      true,
    );
  });

  it('gives up after the set time, with a job that can be retried', async () => {
    ({ engine } = await startTestEngine({ processingDelayMs: 5_000, stepMs: 0 }));
    h = await harness(engine, { policy: { ...FAST.policy, giveUpAfterMs: 600 } });
    const job = await submitUntilProcessing();
    await engine.close();
    const [failed] = await h.manager.waitFor([job.id]);
    expect(failed?.state).toBe('failed');
    expect(failed?.error).toMatchObject({ code: 'network', retryable: true });
  });

  afterEach(async () => {
    await h.close();
    await engine.close();
  });
});
