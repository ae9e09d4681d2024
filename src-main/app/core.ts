import { join } from 'node:path';
import type { Platform } from './platform.js';
import { EventBus } from './event-bus.js';
import { createDispatcher, type Dispatch, type Handlers } from './dispatch.js';
import { ProfileStore } from '../settings/profile-store.js';
import { AppSettingsStore } from '../settings/app-settings.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { ScanService } from '../scans/scan-service.js';
import { createSegmentationProcessor } from '../engine/segmentation/index.js';
import { startLocalEngine, type RunningEngine } from '../engine/local-engine.js';
import type { Processor } from '../engine/processor.js';
import { JobManager } from '../jobs/job-manager.js';
import { FileGrants } from './file-grants.js';
import { ScanGrants } from './scan-grants.js';
import { profileHandlers } from './handlers/profiles.js';
import { appInfoHandlers } from './handlers/app-info.js';
import { scanHandlers } from './handlers/scans.js';
import { connectionHandlers } from './handlers/connections.js';
import { jobHandlers } from './handlers/jobs.js';
import { settingsHandlers } from './handlers/settings.js';

/** The app's core: the same for the Electron window, web mode and tests. Transports only carry it. */
export interface Core {
  platform: Platform;
  logger: Logger;
  bus: EventBus;
  profiles: ProfileStore;
  settings: AppSettingsStore;
  secrets: Platform['secrets'];
  scans: ScanService;
  files: FileGrants;
  /** The files and folders the user chose (dialog, drop, web stage): the only paths scans.intake reads. */
  scanGrants: ScanGrants;
  engineProcessor: Processor;
  /** The embedded local engine, started on first need and kept for the app's lifetime. */
  localEngine(): Promise<RunningEngine>;
  /** The job queue, opened on first need (its database lives in the data folder). */
  jobs(): Promise<JobManager>;
  dispatch: Dispatch;
  /** Resumes unfinished jobs: called once when a window or web session starts, not by tests that do not need it. */
  start(): Promise<void>;
  dispose(): Promise<void>;
}

function once<T>(make: () => Promise<T>): { get: () => Promise<T>; peek: () => Promise<T> | undefined } {
  let value: Promise<T> | undefined;
  return {
    get: () => {
      value ??= make().catch((e: unknown) => {
        // A failed start is not cached: the next call tries again (e.g. after the user fixed a folder).
        value = undefined;
        throw e;
      });
      return value;
    },
    peek: () => value,
  };
}

export function createCore(platform: Platform, opts: { logger?: Logger } = {}): Core {
  const { dataDir } = platform;
  const logger = opts.logger ?? createLogger({ file: join(dataDir, 'logs', 'scan2mesh.log') });
  const bus = new EventBus();
  const engineProcessor = createSegmentationProcessor({ logger: logger.child('engine') });
  const engine = once(() =>
    startLocalEngine({
      processor: engineProcessor,
      dataDir: join(dataDir, 'engine'),
      logger: logger.child('engine'),
    }),
  );
  const profiles = new ProfileStore(dataDir, logger.child('profiles'));
  const settings = new AppSettingsStore(dataDir);
  const scans = new ScanService({ logger: logger.child('scans'), tempDir: join(dataDir, 'tmp', 'scans') });
  const jobs = once(async () => {
    const manager = await JobManager.open({
      dataDir,
      profiles,
      secrets: platform.secrets,
      scans,
      logger: logger.child('jobs'),
      ...(platform.notify ? { notify: platform.notify.bind(platform) } : {}),
      ...(platform.setProgress ? { setProgress: platform.setProgress.bind(platform) } : {}),
      ...(platform.revealInFolder ? { revealInFolder: platform.revealInFolder.bind(platform) } : {}),
      localEngine: engine.get,
    });
    manager.onChange((changed) => bus.emit('jobs.changed', { jobs: changed, paused: manager.isPaused() }));
    return manager;
  });

  const core: Core = {
    platform,
    logger,
    bus,
    profiles,
    settings,
    secrets: platform.secrets,
    scans,
    files: new FileGrants(),
    scanGrants: new ScanGrants(),
    engineProcessor,
    localEngine: engine.get,
    jobs: jobs.get,
    dispatch: undefined as unknown as Dispatch,
    async start() {
      await (await jobs.get()).resumeUnfinished();
    },
    async dispose() {
      await (await jobs.peek()?.catch(() => undefined))?.close();
      await (await engine.peek()?.catch(() => undefined))?.close();
      await scans.dispose();
    },
  };
  // One handler per channel: the Handlers type makes a missing one a compile error.
  const handlers: Handlers = {
    ...appInfoHandlers(core),
    ...profileHandlers(core),
    ...connectionHandlers(core),
    ...scanHandlers(core),
    ...jobHandlers(core),
    ...settingsHandlers(core),
  };
  core.dispatch = createDispatcher(handlers, logger.child('dispatch'));
  return core;
}
