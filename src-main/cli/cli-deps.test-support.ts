import { FAST, testSecrets, type Harness } from '../jobs/jobs.test-support.js';
import { silentLogger } from '../logging/logger.js';
import type { CliQueueDeps } from './queue-driver.js';

/** A command's queue on a harness's data folder and scans, as a second process's would be; it runs no job. */
export function cliDepsFor(h: Harness): CliQueueDeps {
  return {
    env: {},
    dataDir: h.dataDir,
    logger: silentLogger,
    scans: h.scans,
    startEngine: () => Promise.reject(new Error('no job is run here')),
    secrets: testSecrets,
    tuning: FAST,
  };
}
