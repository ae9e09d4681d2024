import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalEngine, type LocalEngineOptions, type RunningEngine } from '../engine/local-engine.js';
import { createFixtureProcessor, FIXTURES } from '../engine/server/fixture-processor.test-support.js';
import type { ProcessorJob } from '../engine/processor.js';
import type { JobSpec } from '../../src-shared/job-spec.js';
import type { PollPolicy } from './retry.js';
import { runJob, type RunJobResult } from './run-job.test-support.js';
import { ServiceClient, type ServiceClientOptions } from './service-client.js';

/** A real DICOM file from the fixtures, uploaded as the cbct input (the fixture processor does not read it). */
export const SCAN = join(FIXTURES, 'dicom', 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm');
export const SPIDER_STL = join(FIXTURES, 'mesh', 'spider-binary.stl');
export const BUNNY_PLY = join(FIXTURES, 'mesh', 'bunny-ascii.ply');

export const SPEC: JobSpec = {
  inputs: { cbct: { extension: '.dcm' } },
  meshes: [
    { extension: '.stl', structures: ['mandible'] },
    { extension: '.ply', structures: ['left_nerve', 'right_nerve'] },
  ],
  options: { mandible: { smoothingIterations: 0, decimateMaxError: 0.1 } },
};

export interface TestEngine {
  engine: RunningEngine;
  calls: ProcessorJob[];
  /** The bytes of each job's inputs as the processor read them (the engine removes them after). */
  inputsReceived: Buffer[][];
}

/** The local engine with the FIXTURE processor (tests only), quick to process. */
export async function startTestEngine(
  opts: Partial<LocalEngineOptions> & { stepMs?: number; fail?: string } = {},
): Promise<TestEngine> {
  const calls: ProcessorJob[] = [];
  const inputsReceived: Buffer[][] = [];
  const { stepMs, fail, ...rest } = opts;
  const engine = await startLocalEngine({
    processor: createFixtureProcessor({
      calls,
      received: inputsReceived,
      stepMs: stepMs ?? 20,
      ...(fail ? { fail } : {}),
    }),
    processingDelayMs: 60,
    concurrency: 4,
    ...rest,
  });
  return { engine, calls, inputsReceived };
}

/** A client of that engine with short waits, so fault tests stay fast. */
export function clientFor(engine: RunningEngine, extra: Partial<ServiceClientOptions> = {}): ServiceClient {
  return new ServiceClient({
    baseUrl: engine.baseUrl,
    authUrl: engine.authUrl,
    audience: engine.audience,
    clientId: engine.clientId,
    clientSecret: engine.clientSecret,
    retry: { baseDelayMs: 10, maxDelayMs: 40, maxAttempts: 5, maxRetryAfterMs: 5_000 },
    idleTimeoutMs: 10_000,
    ...extra,
  });
}

/** Polls 20-80 ms apart, so that tests of whole jobs stay fast. */
export const TEST_POLL: PollPolicy = { initialMs: 20, maxMs: 80, factor: 1.5, jitter: 0.2 };

/** runJob with TEST_POLL unless the hooks say otherwise. */
export function runTestJob(
  ...[client, spec, inputFiles, outDir, hooks = {}]: Parameters<typeof runJob>
): Promise<RunJobResult> {
  return runJob(client, spec, inputFiles, outDir, { poll: TEST_POLL, ...hooks });
}

export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'scan2mesh-test-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
