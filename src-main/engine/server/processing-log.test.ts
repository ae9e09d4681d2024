// The engine's failure line: a refusal of the scan names a slice by its package entry, which keeps
// the user's file name (a patient's name); the log keeps the code, the job (shown to the user) the
// message.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src-shared/errors.js';
import { readLogs } from '../../logging/log-files.test-support.js';
import { createLogger } from '../../logging/logger.js';
import type { Processor } from '../processor.js';
import { JobStore, type EngineJob } from './job-store.js';
import { JobProcessing } from './processing.js';

const SLICE = 'slice-00035-DOE_JANE_0070.dcm';

async function failWith(error: Error): Promise<{ job: EngineJob; log: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'engine-log-'));
  const file = join(dir, 'logs', 'engine.log');
  const logger = createLogger({ file });
  const store = new JobStore(join(dir, 'engine'), logger);
  const processor: Processor = {
    validate: () => null,
    process: () => Promise.reject(error),
  };
  let finished: () => void = () => {};
  const done = new Promise<void>((resolve) => (finished = resolve));
  const processing = new JobProcessing({
    store,
    processor,
    logger,
    minProcessingMs: 0,
    concurrency: 1,
    onFinished: () => finished(),
  });
  const job: EngineJob = {
    id: 'j1',
    createdAt: Date.now(),
    state: 'awaiting-input',
    inputs: [{ name: 'cbct', extension: '.zip', path: join(dir, 'x'), uploaded: true, notified: true }],
    meshes: [{ extension: '.stl', structures: ['skull'] }],
    options: {},
    progress: { fraction: 0, stage: 'created' },
  };
  await store.add(job);
  await processing.maybeStart(job);
  await done;
  await processing.close();
  await logger.close();
  return { job, log: readLogs(file) };
}

describe('engine job failure, logged', () => {
  it('keeps the code of a refusal of the scan, not its message', async () => {
    const { job, log } = await failWith(
      new AppError('bad-input', `The slice ${SLICE} reads 1500 above its neighbours.`),
    );
    expect(job.error).toContain(SLICE);
    expect(log).toContain('engine job failed');
    expect(log).toContain('bad-input');
    expect(log).not.toContain('DOE_JANE');
  });

  it('leaves a file name out of any other failure it logs', async () => {
    const { job, log } = await failWith(new Error(`cannot decode ${SLICE}: truncated`));
    expect(job.error).toContain(SLICE);
    expect(log).toContain('truncated');
    expect(log).not.toContain('DOE_JANE');
  });
});
