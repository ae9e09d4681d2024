import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEngine } from '../engine/local-engine.js';
import { startTestEngine } from '../service/test-engine.test-support.js';
import { DICOM, FIXTURES, harness, type Harness } from './jobs.test-support.js';
import { JOB_MANIFEST } from './output-folder.js';

/**
 * 50 jobs against the local engine with its fault injection on. The engine runs the FIXTURE processor
 * (tests only: it answers each mesh request with a real third-party mesh at once), so that the time
 * goes to the protocol and the queue, which are what is tested here.
 *
 * Job creation gets the faults after which the client knows no job was made: 500 and 502 answers, 429,
 * and connections reset before its body went out (the client waits for "100 Continue"). Each is retried,
 * and the engine's count of created jobs shows that none was made twice. A connection lost after the
 * body went out is spared on purpose: nobody can know then whether the service created the job, and the
 * client rightly refuses to send POST /job again (the job fails as 'job-may-exist'; see job-runner.test.ts).
 */
describe('50 jobs through 5xx, 429, resets, dropped connections and a token expiry', () => {
  let engine: RunningEngine;
  let h: Harness;

  beforeAll(async () => {
    ({ engine } = await startTestEngine({ processingDelayMs: 20, stepMs: 0, concurrency: 4 }));
    h = await harness(engine, { limits: { uploads: 4, downloads: 4 } });
  });

  afterAll(async () => {
    await h?.close();
    await engine?.close();
  });

  it('finishes every job, none twice', async () => {
    const r = await h.scans.intake([join(DICOM, 'dicomdir'), join(DICOM, 'multiframe')]);
    const usable = r.series.filter(
      (s) => s.modality === 'CT' && !s.problems.some((p) => p.severity === 'error'),
    );
    const seriesIds = Array.from({ length: 50 }, (_, i) => usable[i % usable.length]!.id);
    engine.setFaults({
      status500: { share: 0.08, on: ['token', 'job', 'upload', 'notify', 'poll', 'download'] },
      status502: { share: 0.2, on: ['job'] },
      resetBeforeBody: { share: 0.2, on: ['job'] },
      status429: { count: 12, retryAfterSeconds: 1 },
      dropConnection: { count: 10, on: ['upload', 'poll', 'download'] },
    });
    const jobs = await h.manager.submit(
      {
        seriesIds,
        meshes: [{ structures: ['mandible'], extension: '.stl' }],
        deidentify: false,
        outputDir: h.outDir,
      },
      // One folder per service job: a second download of one job's mesh would show as "mandible (2).stl".
      { namingTemplate: '{jobId}/{structures}{ext}' },
    );
    expect(jobs).toHaveLength(50);

    let expired = false;
    const off = h.manager.onChange(() => {
      if (!expired && h.manager.list().filter((v) => v.state === 'done').length >= 20) {
        expired = true;
        engine.expireTokens();
      }
    });
    const done = await h.manager.waitFor(jobs.map((j) => j.id));
    off();

    expect(expired).toBe(true);
    const failed = done.filter((v) => v.state !== 'done');
    expect(failed.map((v) => v.error?.message)).toEqual([]);
    // Every job done was created once on the engine, although job creation was refused or reset often.
    expect(engine.stats.jobsCreated).toBe(50);
    expect(new Set(done.map((v) => v.remoteJobId)).size).toBe(50);
    expect(engine.stats.jobRequests).toBeGreaterThanOrEqual(50 + 15);
    // The faults were really there, and the token was renewed once after the expiry.
    expect(engine.stats.unauthorized).toBeGreaterThan(0);
    expect(engine.stats.tokensIssued).toBe(2);

    const size = (await stat(join(FIXTURES, 'mesh', 'spider-binary.stl'))).size;
    for (const v of done) {
      expect(v.outputs).toHaveLength(1);
      const out = v.outputs[0]!;
      expect(out.path).toBe(join(h.outDir, v.remoteJobId as string, 'mandible.stl'));
      expect((await stat(out.path)).size).toBe(size);
      // Nothing else in the job's folder: no second copy, no partial download left behind; only the
      // file that says whose it is.
      expect((await readdir(join(h.outDir, v.remoteJobId as string))).sort()).toEqual([
        'mandible.stl',
        JOB_MANIFEST,
      ]);
    }
    const history = done.flatMap((v) => h.manager.history(v.id));
    expect(history.filter((e) => e.kind === 'state' && e.to === 'submitting')).toHaveLength(50);
  });
});
