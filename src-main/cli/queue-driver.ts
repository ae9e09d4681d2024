import { isTerminal, type JobView } from '../../src-shared/jobs.js';
import {
  chooseConnection,
  withEnvSecret,
  type ChosenConnection,
  type ConnectionFlags,
} from '../connections/connection-flags.js';
import { startDefaultEngine } from '../engine/default-engine.js';
import type { RunningEngine } from '../engine/local-engine.js';
import { openJobDatabase } from '../jobs/job-db.js';
import { creationOpen } from '../jobs/job-errors.js';
import { JobManager, type JobManagerOptions } from '../jobs/job-manager.js';
import { SHUTDOWN_CREATE_GRACE_MS } from '../jobs/job-runner.js';
import { JobStore, type JobRecord } from '../jobs/job-store.js';
import { toView } from '../jobs/job-view.js';
import type { Logger } from '../logging/logger.js';
import { dataDir } from '../platform/paths.js';
import { ScanService } from '../scans/scan-service.js';
import { createKeytarSecretStore, type SecretStore } from '../secrets/secret-store.js';
import { ProfileStore } from '../settings/profile-store.js';
import { engineOnDemand } from './engine-on-demand.js';
import { cliLogger } from './cli-logger.js';
import { showProgress, type ProgressTarget } from './progress-view.js';

export interface CliQueueDeps {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  logger: Logger;
  scans: ScanService;
  startEngine: () => Promise<RunningEngine>;
  secrets: () => SecretStore;
  /** Tests shorten the queue's waits. */
  tuning?: Pick<JobManagerOptions, 'policy' | 'client' | 'watchMs'>;
}

/** The real thing: the user's data folder, the keychain, and the local engine with real segmentation. */
function cliQueueDeps(logger: Logger, scans: ScanService): CliQueueDeps {
  return {
    env: process.env,
    dataDir: dataDir(),
    logger,
    scans,
    // A temporary engine folder: the engine stops with the command, and a job it held is created
    // again from its package on the next start (allowed for the local engine only; see job-runner.ts).
    startEngine: () => startDefaultEngine({ logger }),
    secrets: () => createKeytarSecretStore(),
  };
}

/** Runs a queue command with the real deps and a scan service of its own, closed when it ends. */
export async function withCliQueueDeps<T>(
  verbose: boolean | undefined,
  run: (deps: CliQueueDeps) => Promise<T>,
): Promise<T> {
  const logger = cliLogger(verbose);
  const scans = new ScanService({ logger });
  try {
    return await run(cliQueueDeps(logger, scans));
  } finally {
    await scans.dispose();
  }
}

export interface CliQueue extends Pick<ChosenConnection, 'profileId' | 'kind' | 'label'> {
  manager: JobManager;
  /** Stops the queue's runners and closes it; a second call waits for the first. */
  close(): Promise<void>;
  /** After close: the jobs as the queue left them, read back from its database. */
  endedViews(ids: string[]): { views: JobView[]; mayExist: string[] };
}

/**
 * The job queue for a command: the shared job database in the data folder, and the connection the
 * flags name (connections/connection-flags.ts: the same rules as every command). The local engine is
 * started only if a job needs it, and stops with the command; see resume notes in job-runner.ts.
 */
export async function openCliQueue(
  flags: ConnectionFlags,
  deps: CliQueueDeps,
  limits: { uploads?: number; downloads?: number } = {},
): Promise<CliQueue> {
  const profiles = new ProfileStore(deps.dataDir, deps.logger);
  const chosen = chooseConnection(flags, { env: deps.env, profiles });
  const engine = engineOnDemand(deps.startEngine);
  const manager = await JobManager.open({
    dataDir: deps.dataDir,
    profiles,
    secrets: withEnvSecret(deps.secrets(), chosen),
    scans: deps.scans,
    logger: deps.logger,
    limits,
    localEngine: engine.get,
    ...(chosen.custom ? { connections: [chosen.custom] } : {}),
    ...deps.tuning,
  });
  let closing: Promise<void> | undefined;
  return {
    manager,
    profileId: chosen.profileId,
    kind: chosen.kind,
    label: chosen.label,
    close() {
      closing ??= (async () => {
        await manager.close();
        await engine.close();
      })();
      return closing;
    },
    endedViews: (ids) => endedViews(deps.dataDir, ids),
  };
}

/** The jobs as a closed queue left them, and those whose creation was sent and never answered. */
function endedViews(dir: string, ids: string[]): { views: JobView[]; mayExist: string[] } {
  const db = openJobDatabase(dir);
  try {
    const store = new JobStore(db);
    const records = ids.map((id) => store.get(id)).filter((r): r is JobRecord => r !== undefined);
    return { views: records.map((r) => toView(r)), mayExist: records.filter(creationOpen).map((r) => r.id) };
  } finally {
    db.close();
  }
}

/**
 * Shows the jobs' progress on `progress` until they all end. Ctrl+C (SIGINT or SIGTERM) stops waiting:
 * the jobs stay in the queue as they stood, for `scan2mesh resume`.
 */
export async function waitWithProgress(
  queue: CliQueue,
  ids: string[],
  progress: ProgressTarget,
): Promise<{ views: JobView[]; interrupted: boolean; mayExist: string[] }> {
  const stopView = showProgress(queue.manager, ids, progress);
  let viewStopped = false;
  // Once only: its last drawing reads the queue, which is closed after an interrupt.
  const stop = (): void => {
    if (viewStopped) return;
    viewStopped = true;
    stopView();
  };
  let onSignal: (() => void) | undefined;
  const interrupted = new Promise<'interrupted'>((resolve) => {
    onSignal = () => resolve('interrupted');
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  try {
    const outcome = await Promise.race([queue.manager.waitFor(ids), interrupted]);
    if (outcome === 'interrupted') {
      // A job request on its way may still be answered: whether the service has the job is known only
      // then (a review saw "may exist" for a job whose id came a second later). The queue stops now,
      // its runners giving such a request its bounded wait; the command once waited 5 s itself and
      // the shutdown then waited 5 s more (a review measured 10 s, and nothing said for the first 5).
      const sent = ids.filter((id) => queue.manager.creationUnconfirmed(id)).length;
      stop();
      if (sent > 0)
        progress.write(
          `Ctrl+C: ${sent === 1 ? 'a job request is' : `${sent} job requests are`} on its way; waiting up to ${SHUTDOWN_CREATE_GRACE_MS / 1000} s for the service's answer.\n`,
        );
      await queue.close();
      const { views, mayExist } = queue.endedViews(ids);
      // Stopped while its creation was on its way: whether the service has it is open (exit 5), and
      // `resume` would say so only then (a review).
      const left = views.filter((v) => !isTerminal(v.state) && !mayExist.includes(v.id)).length;
      if (left > 0)
        progress.write(
          `Interrupted: ${left} job${left === 1 ? '' : 's'} left in the queue; \`scan2mesh resume\` finishes them.\n`,
        );
      if (mayExist.length > 0)
        progress.write(
          `Interrupted while ${mayExist.length === 1 ? 'a job was' : `${mayExist.length} jobs were`} being created: the service may have ${mayExist.length === 1 ? 'it' : 'them'}. Check with the service operator; ${mayExist.map((id) => `\`scan2mesh retry ${id} --resubmit\``).join(', ')} submits ${mayExist.length === 1 ? 'it' : 'each'} again.\n`,
        );
      return { views, interrupted: true, mayExist };
    }
    return { views: outcome, interrupted: false, mayExist: [] };
  } finally {
    stop();
    if (onSignal) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}
