import type { Logger } from '../logging/logger.js';
import { startLocalEngine, type RunningEngine } from './local-engine.js';
import type { Processor } from './processor.js';
import { createSegmentationProcessor } from './segmentation/index.js';

interface DefaultEngineOptions {
  /**
   * Where the engine keeps jobs (and finds them again after a restart). Absent: a temporary folder
   * removed on close. Two engines must never share one folder: each would resume the other's jobs.
   */
  dataDir?: string;
  logger?: Logger;
  /** Absent or 0: a random free port on 127.0.0.1. */
  port?: number;
  /** Absent: a random secret, readable from the returned engine. */
  clientSecret?: string;
  /** The segmentation processor, when the caller also asks it what it can do; absent: a new one. */
  processor?: Processor;
}

/**
 * How long the app's engine holds a poll of a running job: long enough that a finish mostly falls
 * within a held poll (the client polls again 0.1 to 0.25 s after each answer), short of any client's
 * patience for one answer.
 */
const POLL_HOLD_MS = 2_000;

/** The app's local engine: the protocol server with real segmentation behind it. */
export function startDefaultEngine(opts: DefaultEngineOptions = {}): Promise<RunningEngine> {
  return startLocalEngine({
    processor:
      opts.processor ??
      createSegmentationProcessor(opts.logger ? { logger: opts.logger.child('segmentation') } : {}),
    pollHoldMs: POLL_HOLD_MS,
    ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}),
    ...(opts.logger ? { logger: opts.logger.child('engine') } : {}),
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.clientSecret !== undefined ? { clientSecret: opts.clientSecret } : {}),
  });
}
