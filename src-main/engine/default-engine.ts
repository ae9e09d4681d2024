import type { Logger } from '../logging/logger.js';
import { startLocalEngine, type RunningEngine } from './local-engine.js';
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
}

/** The app's local engine: the protocol server with real segmentation behind it. */
export function startDefaultEngine(opts: DefaultEngineOptions = {}): Promise<RunningEngine> {
  return startLocalEngine({
    processor: createSegmentationProcessor(opts.logger ? { logger: opts.logger.child('segmentation') } : {}),
    ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}),
    ...(opts.logger ? { logger: opts.logger.child('engine') } : {}),
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.clientSecret !== undefined ? { clientSecret: opts.clientSecret } : {}),
  });
}
