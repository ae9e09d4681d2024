// A job that fails on the user's files says which file to the user, never to the log: a file name
// may be a patient's name (README: patient data is never logged).
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { RunningEngine } from '../engine/local-engine.js';
import { createMemoryLogger } from '../logging/memory-logger.test-support.js';
import { redact } from '../logging/redact.js';
import { phantomBySlice } from '../scans/scans.test-support.js';
import { startTestEngine } from '../service/test-engine.test-support.js';
import { harness, type Harness } from './jobs.test-support.js';

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

it('logs a job failed on a vanished slice without its name or path', async () => {
  const logger = createMemoryLogger();
  h = await harness(engine, { logger });
  const dir = join(h.dir, 'DOE JANE 19470313');
  mkdirSync(dir);
  const names = phantomBySlice()
    .slice(60, 64)
    .map((f, i) => {
      const name = `LKFN01_DOE_JANE_00${i}.dcm`;
      copyFileSync(f, join(dir, name));
      return name;
    });
  const r = await h.scans.intake([dir]);
  rmSync(join(dir, names[2]!));
  const [job] = await h.manager.submit({
    seriesIds: [r.series[0]!.id],
    meshes: [{ structures: ['skull'], extension: '.stl' }],
    deidentify: false,
    outputDir: h.outDir,
  });
  const [done] = await h.manager.waitFor([job!.id]);
  expect(done?.state).toBe('failed');
  // The user is told which file.
  expect(JSON.stringify(done)).toContain('LKFN01_DOE_JANE_002.dcm');
  // Every line as the logger writes it (redact() is its last step).
  const lines = logger.entries.map((e) => redact(JSON.stringify(e)));
  expect(lines.some((l) => l.includes('job failed'))).toBe(true);
  for (const l of lines) expect(l).not.toMatch(/LKFN01|DOE|19470313/);
});
