import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { makeableNames } from '../../../src-shared/structure-check.js';
import type { JobView } from '../../../src-shared/jobs.js';
import { createSegmentationProcessor } from '../../engine/segmentation/index.js';
import { PHANTOM_DIR } from '../../scans/scans.test-support.js';
import { connectionCapabilities } from '../structure-check.js';
import { testCore } from '../core.test-support.js';
import type { Core } from '../core.js';

const work = mkdtempSync(join(tmpdir(), 'scan2mesh-job-handlers-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function call(core: Core, channel: string, payload: unknown): Promise<unknown> {
  const r = await core.dispatch(channel, payload);
  if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
  return r.value;
}

/** A queued job of the phantom, held by a paused queue so that nothing runs while the test names it. */
async function heldJob(core: Core): Promise<JobView> {
  const out = join(work, 'meshes');
  const checked = (await call(core, 'settings.checkOutputDir', { path: out })) as { confirmation: string };
  await call(core, 'settings.setOutputDir', { path: out, confirmation: checked.confirmation });
  await call(core, 'jobs.pause', {});
  const grants = [core.scanGrants.grant(PHANTOM_DIR).id];
  const { series } = (await call(core, 'scans.intake', { grants })) as { series: { id: string }[] };
  const structure = makeableNames(connectionCapabilities('local-engine', createSegmentationProcessor()))![0]!;
  const { jobs } = (await call(core, 'jobs.submit', {
    seriesIds: [series[0]!.id],
    meshes: [{ structures: [structure], extension: '.stl' }],
    deidentify: false,
  })) as { jobs: JobView[] };
  return jobs[0]!;
}

describe('the job channels name a job by its full id only', () => {
  it('refuses a prefix and an unknown id in words, and acts on the full id', async () => {
    const core = testCore();
    try {
      const job = await heldJob(core);
      // The command line accepts the first characters people type; the contract does not.
      for (const channel of ['jobs.cancel', 'jobs.prioritize', 'jobs.remove']) {
        const prefix = await core.dispatch(channel, { id: job.id.slice(0, 8) });
        expect(prefix, channel).toMatchObject({ ok: false, error: { code: 'bad-request' } });
        if (!prefix.ok) expect(prefix.error.message).toMatch(/Not a job id/);
      }
      const output = await core.dispatch('jobs.openOutput', { id: job.id.slice(0, 8), index: 0 });
      expect(output).toMatchObject({ ok: false, error: { code: 'bad-request' } });
      const unknown = await core.dispatch('jobs.cancel', { id: randomUUID() });
      expect(unknown).toMatchObject({
        ok: false,
        error: { code: 'not-found', message: 'That job no longer exists.' },
      });

      expect(await core.dispatch('jobs.cancel', { id: job.id })).toEqual({ ok: true, value: {} });
      const { jobs } = (await call(core, 'jobs.list', {})) as { jobs: JobView[] };
      expect(jobs.map((j) => [j.id, j.state])).toEqual([[job.id, 'canceled']]);
    } finally {
      await core.dispose();
    }
  });
});
