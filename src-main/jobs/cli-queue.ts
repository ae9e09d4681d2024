import { AppError } from '../../src-shared/errors.js';
import { isTerminal, type JobView } from '../../src-shared/jobs.js';
import { LOCAL_ENGINE_PROFILE } from '../../src-shared/profiles.js';
import type { JobReport } from '../cli/commands/submit.js';
import { EXIT } from '../cli/exit-codes.js';
import { startDefaultEngine } from '../engine/default-engine.js';
import type { RunningEngine } from '../engine/local-engine.js';
import type { Logger } from '../logging/logger.js';
import type { ScanService } from '../scans/scan-service.js';
import { dataDir } from '../platform/paths.js';
import { createKeytarSecretStore, type SecretStore } from '../secrets/secret-store.js';
import { ADDRESS_FLAGS, SECRET_ENV, type ConnectionFlags } from '../service/connection.js';
import { ProfileStore } from '../settings/profile-store.js';
import { customProfileId, type CustomConnection } from './connections.js';
import { JobManager, type JobManagerOptions } from './job-manager.js';
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
export function cliQueueDeps(logger: Logger, scans: ScanService): CliQueueDeps {
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

export interface CliQueue {
  manager: JobManager;
  /** Where new jobs go: the connection the flags name (the local engine without flags). */
  profileId: string;
  kind: 'local-engine' | 'remote';
  /** For messages: "the local engine", 'profile "Relu EU" (…)', or the service address. */
  label: string;
  close(): Promise<void>;
}

/**
 * The job queue for a command: the shared job database in the data folder, and the connection the
 * flags name (the same rules as every command: a secret is never a flag). The local engine is started
 * only if a job needs it, and stops with the command; see resume notes in job-runner.ts.
 */
export async function openCliQueue(
  flags: ConnectionFlags,
  deps: CliQueueDeps,
  limits: { uploads?: number; downloads?: number } = {},
): Promise<CliQueue> {
  const given = ADDRESS_FLAGS.filter(([key]) => flags[key] !== undefined);
  if (flags.profile !== undefined && given.length > 0)
    throw usage(`Give either --profile or ${given.map(([, f]) => f).join(', ')}, not both.`);
  const profiles = new ProfileStore(deps.dataDir, deps.logger);
  let custom: CustomConnection | undefined;
  let profileId: string = LOCAL_ENGINE_PROFILE.id;
  let label = 'the local engine';
  let kind: CliQueue['kind'] = 'local-engine';
  let envSecretFor: string | undefined;
  if (given.length > 0) {
    const missing = ADDRESS_FLAGS.filter(([key]) => !flags[key]).map(([, f]) => f);
    if (missing.length > 0) throw usage(`A connection given by address also needs ${missing.join(', ')}.`);
    const secret = deps.env[SECRET_ENV];
    if (!secret)
      throw usage(`The client secret is read from the environment variable ${SECRET_ENV}, which is not set.`);
    custom = {
      baseUrl: flags.baseUrl as string,
      authUrl: flags.authUrl as string,
      audience: flags.audience as string,
      clientId: flags.clientId as string,
      clientSecret: secret,
    };
    profileId = customProfileId(custom);
    label = custom.baseUrl;
    kind = 'remote';
  } else if (flags.profile !== undefined) {
    const profile = profiles.get(flags.profile);
    if (!profile) {
      const names = profiles.list().map((p) => `"${p.name}"`);
      throw usage(`No connection profile named "${flags.profile}". Known: ${names.join(', ') || 'none'}.`);
    }
    profileId = profile.id;
    if (profile.kind === 'remote') {
      kind = 'remote';
      label = `profile "${profile.name}" (${profile.baseUrl})`;
      envSecretFor = profile.id;
    }
  }

  let engine: Promise<RunningEngine> | undefined;
  const keychain = deps.secrets();
  const envSecret = deps.env[SECRET_ENV];
  const secrets: SecretStore = {
    ...keychain,
    // As for every command: SCAN2MESH_CLIENT_SECRET, when set, is the secret of the profile named.
    get: (account) =>
      account === envSecretFor && envSecret ? Promise.resolve(envSecret) : keychain.get(account),
  };
  const manager = await JobManager.open({
    dataDir: deps.dataDir,
    profiles,
    secrets,
    scans: deps.scans,
    logger: deps.logger,
    limits,
    localEngine: () => (engine ??= deps.startEngine()),
    ...(custom ? { connections: [custom] } : {}),
    ...deps.tuning,
  });
  return {
    manager,
    profileId,
    kind,
    label,
    async close() {
      await manager.close();
      if (engine) await (await engine.catch(() => undefined))?.close();
    },
  };
}

/** The --json and text report of one job, as `scan2mesh submit` has always printed it. */
export function toReport(v: JobView): JobReport {
  const state: JobReport['state'] = v.state === 'done' || v.state === 'canceled' ? v.state : 'failed';
  const report: JobReport = {
    scan: v.scanName,
    series: v.seriesDescription,
    jobId: v.remoteJobId ?? null,
    state,
    outputs: v.outputs.map((o) => ({
      structures: o.structures,
      path: o.path,
      bytes: o.bytes,
      ...(o.note ? { note: o.note } : {}),
    })),
    error: v.error
      ? {
          code: v.error.code,
          message: v.error.message,
          ...(v.error.action !== undefined ? { action: v.error.action } : {}),
          ...(v.error.retryable !== undefined ? { retryable: v.error.retryable } : {}),
        }
      : isTerminal(v.state)
        ? null
        : { code: 'canceled', message: `Stopped while ${v.state}; \`scan2mesh resume\` finishes it.` },
  };
  return report;
}

/**
 * 0 when every job is done; else the most telling failure among them: 3 one failed to sign in, 4 one
 * could not reach its service, 5 one's creation may have reached the service; 1 otherwise.
 */
export function exitCodeOf(views: JobView[]): number {
  if (views.every((v) => v.state === 'done')) return EXIT.ok;
  const failedWith = (code: string): boolean =>
    views.some((v) => v.state === 'failed' && v.error?.code === code);
  if (failedWith('auth-failed')) return EXIT.authFailed;
  if (failedWith('network')) return EXIT.unreachable;
  if (failedWith('job-may-exist')) return EXIT.mayExist;
  return EXIT.jobFailed;
}

/**
 * Shows the jobs' progress on `progress` until they all end. Ctrl+C (SIGINT or SIGTERM) stops waiting:
 * the jobs stay in the queue as they stood, for `scan2mesh resume`.
 */
export async function waitWithProgress(
  queue: CliQueue,
  ids: string[],
  progress: ProgressTarget,
): Promise<{ views: JobView[]; interrupted: boolean }> {
  const stop = showProgress(queue.manager, ids, progress);
  let onSignal: (() => void) | undefined;
  const interrupted = new Promise<'interrupted'>((resolve) => {
    onSignal = () => resolve('interrupted');
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  try {
    const outcome = await Promise.race([queue.manager.waitFor(ids), interrupted]);
    if (outcome === 'interrupted') {
      const views = ids.map((id) => queue.manager.get(id)).filter((v): v is JobView => v !== undefined);
      const left = views.filter((v) => !isTerminal(v.state)).length;
      progress.write(
        `Interrupted: ${left} job${left === 1 ? '' : 's'} left in the queue; \`scan2mesh resume\` finishes them.\n`,
      );
      return { views, interrupted: true };
    }
    return { views: outcome, interrupted: false };
  } finally {
    stop();
    if (onSignal) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}

export function parseConcurrency(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 16)
    throw new AppError('bad-input', `--concurrency must be 1..16, not "${value}"`, {
      action: 'Give the number of uploads (and of downloads) to run at the same time.',
    });
  return n;
}

function usage(message: string): AppError {
  return new AppError('bad-input', message, {
    action: 'Run the command with --help to see the connection options.',
  });
}
