// The runner picks the package's compression by connection: stored for the local engine (loopback,
// where deflating only costs seconds of CPU on both sides), deflated for any other service.
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEngine } from '../engine/local-engine.js';
import { createMemoryLogger } from '../logging/memory-logger.test-support.js';
import { phantomBySlice } from '../scans/scans.test-support.js';
import { startTestEngine } from '../service/test-engine.test-support.js';
import { harness, type Harness, submitScan } from './jobs.test-support.js';

let engine: RunningEngine;
let h: Harness | undefined;

beforeEach(async () => {
  ({ engine } = await startTestEngine({ processingDelayMs: 20, stepMs: 0 }));
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await engine.close();
});

/** Submits four contiguous phantom slices (a series of its own) and returns the packaged size. */
async function packagedBytes(local: boolean): Promise<{ bytes: number; slices: number }> {
  const logger = createMemoryLogger();
  h = await harness(
    engine,
    local ? { logger, connections: [], localEngine: async () => engine } : { logger },
  );
  const dir = join(h.dir, 'series');
  mkdirSync(dir);
  const slices = phantomBySlice().slice(60, 64);
  for (const f of slices) copyFileSync(f, join(dir, basename(f)));
  const job = await submitScan(h, [dir], [{ structures: ['skull'], extension: '.stl' }]);
  const [done] = await h.manager.waitFor([job.id]);
  expect(done?.state).toBe('done');
  expect(done?.profileId === 'local-engine').toBe(local);
  const packaged = logger.entries.find((e) => e.msg === 'packaged' && e.data.jobId === job.id);
  return {
    bytes: packaged?.data.bytes as number,
    slices: slices.reduce((n, f) => n + statSync(f).size, 0),
  };
}

describe('package compression by connection', () => {
  it('sends the local engine the slices stored, not deflated', async () => {
    const { bytes, slices } = await packagedBytes(true);
    // Stored: every byte of the slices plus the zip's headers.
    expect(bytes).toBeGreaterThan(slices);
    expect(bytes).toBeLessThan(slices + 4 * 1024);
  });

  it('deflates the slices for a service elsewhere', async () => {
    const { bytes, slices } = await packagedBytes(false);
    expect(bytes).toBeLessThan(slices * 0.9);
  });
});
