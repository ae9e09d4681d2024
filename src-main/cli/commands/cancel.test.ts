import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEngine } from '../../engine/local-engine.js';
import { DICOM, harness, until, type Harness } from '../../jobs/jobs.test-support.js';
import { startTestEngine } from '../../service/test-engine.test-support.js';
import type { CliQueueDeps } from '../queue-driver.js';
import { runCancel } from './cancel.js';
import { cliDepsFor } from '../cli-deps.test-support.js';

// `scan2mesh cancel`: a technician stops jobs of a batch that the app (here: another queue on the same
// data folder, as the app's is) runs, from the command line.

let engine: RunningEngine;
let h: Harness;

beforeEach(async () => {
  // The engine holds each job for a minute: the job is still processing when the command cancels it.
  ({ engine } = await startTestEngine({ processingDelayMs: 60_000, stepMs: 0 }));
  h = await harness(engine);
});
afterEach(async () => {
  await h.close();
  await engine.close();
});

const cliDeps = (): CliQueueDeps => cliDepsFor(h);

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('scan2mesh cancel', () => {
  it('stops a job another queue runs, which then removes its packed scan; an ended job is said so', async () => {
    const r = await h.scans.intake([join(DICOM, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm')]);
    const seriesId = r.series[0]!.id;
    const meshes = [{ structures: ['mandible'], extension: '.stl' as const }];
    const [job] = await h.manager.submit({ seriesIds: [seriesId], meshes, deidentify: false });
    const id = job!.id;
    await until(() => h.manager.get(id)?.state === 'processing');
    const packageDir = join(h.dataDir, 'packages', id);

    // Every id is looked up first: one unknown, and nothing is canceled.
    await expect(runCancel([id.slice(0, 8), 'nosuchjob'], {}, cliDeps(), { out: () => {} })).rejects.toThrow(
      /There is no job "nosuchjob"/,
    );
    expect(h.manager.get(id)?.state).toBe('processing');

    let text = '';
    expect(await runCancel([id.slice(0, 8)], {}, cliDeps(), { out: (t) => void (text += t) })).toBe(0);
    expect(text).toMatch(new RegExp(`^Canceled job ${id.slice(0, 8)} \\(.+\\), which was processing; `));
    expect(text).toContain('is not canceled there: the service has no cancel.');
    // The queue that runs it sees the cancel in the database, stops, and removes what the job left.
    await until(() => h.manager.get(id)?.state === 'canceled');
    await until(async () => !(await exists(packageDir)));

    let again = '';
    await runCancel([id], { json: true }, cliDeps(), { out: (t) => void (again += t) });
    expect(JSON.parse(again)).toEqual({ jobs: [{ job: id, was: 'canceled', state: 'canceled' }] });
    let words = '';
    await runCancel([id], {}, cliDeps(), { out: (t) => void (words += t) });
    expect(words).toBe(
      `Job ${id.slice(0, 8)} (${job!.scanName}) had already ended (canceled): nothing to cancel.\n`,
    );
  });
});
