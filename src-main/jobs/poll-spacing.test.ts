import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { engineCredentials, type RunningEngine } from '../engine/local-engine.js';
import { ServiceClient } from '../service/service-client.js';
import { createMemoryLogger } from '../logging/memory-logger.test-support.js';
import { startTestEngine } from '../service/test-engine.test-support.js';
import { DICOM, FAST, harness, type Harness, submitScan, until } from './jobs.test-support.js';

let engine: RunningEngine | undefined;
let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  await engine?.close();
});

describe('polling a job through failed polls', () => {
  it('goes on at the spacing it had after a failed poll, instead of starting again at the shortest', async () => {
    // Every other poll is answered 500, and the client does not retry it itself: each one fails the
    // step, the runner waits, and polls again. The processing takes long enough for many polls.
    ({ engine } = await startTestEngine({
      processingDelayMs: 800,
      stepMs: 0,
      faults: { status500: { share: 0.5, on: ['poll'] } },
    }));
    const logger = createMemoryLogger();
    h = await harness(engine, {
      logger,
      client: { ...FAST.client, retry: { ...FAST.client!.retry!, maxAttempts: 1 } },
    });
    const job = await submitScan(h, [join(DICOM, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm')]);
    const [done] = await h.manager.waitFor([job.id]);
    expect(done?.state).toBe('done');

    const failedPolls = logger.entries.filter((e) => e.msg === 'step failed, will try again');
    expect(failedPolls.length).toBeGreaterThan(0);
    // The poll counter runs on through the failures: 0, 1, 2, … and never back to 0.
    const n = logger.entries.filter((e) => e.msg === 'next poll').map((e) => e.data.n as number);
    expect(n.length).toBeGreaterThan(2);
    expect(n).toEqual(n.map((_, i) => i));
  });

  it('polls at once, instead of at its next time, the job the user brings forward', async () => {
    ({ engine } = await startTestEngine({ processingDelayMs: 1_500, stepMs: 0 }));
    // The next poll would be a minute away; the test ends long before that unless the poll is woken.
    h = await harness(engine, { ...FAST, policy: { ...FAST.policy, initialMs: 60_000, maxMs: 60_000 } });
    const job = await submitScan(h, [join(DICOM, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm')]);
    await new Promise<void>((resolve) => {
      const off = h!.manager.onChange((views) => {
        if (views.some((v) => v.id === job.id && v.state === 'processing')) {
          off();
          resolve();
        }
      });
    });
    // Waits until the engine has finished (asked through the interface, as the app would ask; the
    // app's own poll is a minute away), then brings the job forward. A fixed wait could end before the
    // engine did on a busy machine, and the brought-forward poll then find it still processing.
    const client = new ServiceClient(engineCredentials(engine));
    const remote = h.manager.get(job.id)!.remoteJobId!;
    await until(async () => {
      const poll = await client.pollOnce(remote);
      if (poll.state === 'finished') return true;
      await new Promise((resolve) => setTimeout(resolve, 100));
      return false;
    });
    expect(h.manager.get(job.id)?.state).toBe('processing');
    h.manager.prioritize(job.id);
    const [done] = await h.manager.waitFor([job.id]);
    expect(done?.state).toBe('done');
  });
});
