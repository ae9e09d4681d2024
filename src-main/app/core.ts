import { join } from 'node:path';
import type { Platform } from './platform.js';
import { EventBus } from './event-bus.js';
import { createDispatcher, type Dispatch, type Handlers } from './dispatch.js';
import { ProfileStore } from '../settings/profile-store.js';
import { AppSettingsStore } from '../settings/app-settings.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { ScanService } from '../scans/scan-service.js';
import { sweepTempFoldersOf } from '../platform/temp-folders.js';
import { embeddedEngineDir } from '../platform/paths.js';
import { createSegmentationProcessor } from '../engine/segmentation/index.js';
import { startDefaultEngine } from '../engine/default-engine.js';
import { JobManager } from '../jobs/job-manager.js';
import { attachDesktopSignals } from '../jobs/desktop-signals.js';
import { FileGrants } from './file-grants.js';
import { ScanGrants } from './scan-grants.js';
import type { FileHandout } from './services.js';
import { profileHandlers } from './handlers/profiles.js';
import { appInfoHandlers } from './handlers/app-info.js';
import { scanHandlers } from './handlers/scans.js';
import { connectionHandlers } from './handlers/connections.js';
import { jobHandlers } from './handlers/jobs.js';
import { settingsHandlers } from './handlers/settings.js';

/**
 * The app's core as a transport carries it: the same for the Electron window, web mode and tests. The
 * services behind the handlers stay inside createCore; a transport gets the dispatcher, the events, and
 * the grants it serves (files) or issues (scans the user chose).
 */
export interface Core {
  platform: Platform;
  logger: Logger;
  bus: EventBus;
  /** Files the core handed to the renderer (finished meshes), served by the transport. */
  files: FileGrants;
  /** The files and folders the user chose (dialog, drop, web stage): the only paths scans.intake reads. */
  scanGrants: ScanGrants;
  /** The contract's one entry: validates, runs the channel's handler, answers an envelope. */
  dispatch: Dispatch;
  /** Resumes unfinished jobs: called once when a window or web session starts, not by tests that do not need it. */
  start(): Promise<void>;
  /** Web mode's staged drops of a session that ends: removed unless a job was made from them. */
  releaseDrops(drops: readonly string[]): Promise<void>;
  dispose(): Promise<void>;
}

interface CoreOptions {
  logger?: Logger;
  /**
   * The address at which the transport carrying this core serves a granted file (web-server.ts,
   * app-protocol.ts): the transport makes it, so the core never knows which one called.
   */
  fileUrl: (grantId: string) => string;
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

export function createCore(platform: Platform, opts: CoreOptions): Core {
  const { dataDir } = platform;
  const logger = opts.logger ?? createLogger({ file: join(dataDir, 'logs', 'scan2mesh.log') });
  const bus = new EventBus();
  // What a killed process left unpacked goes at once, not when this one first unpacks (web mode
  // restarted idle, the app opened and closed): a copy of patient data.
  const sweeping = sweepTempFoldersOf(dataDir).then(
    (removed) => {
      if (removed.length > 0)
        logger.info('removed unpacked scans of ended processes', { count: removed.length });
    },
    (e: unknown) => logger.warn('unpacked scans of ended processes not removed', { error: String(e) }),
  );
  const engineProcessor = createSegmentationProcessor({ logger: logger.child('engine') });
  const engine = once(() =>
    // The same engine as the command line's: polls held, workers made ready ahead of a job.
    startDefaultEngine({ processor: engineProcessor, dataDir: embeddedEngineDir(dataDir), logger }),
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
      ...(platform.revealInFolder ? { revealInFolder: platform.revealInFolder.bind(platform) } : {}),
      localEngine: engine.get,
      runningLocalEngine: engine.peek,
      keepPauses: true,
      // A job whose command line was killed is finished here, not shown as under way forever.
      adoptEveryMs: 15_000,
    });
    manager.onChange((changed) => bus.emit('jobs.changed', { jobs: changed, paused: manager.isPaused() }));
    // Notifications and taskbar progress listen to the queue from outside it.
    attachDesktopSignals(manager, {
      ...(platform.notify ? { notify: platform.notify.bind(platform) } : {}),
      ...(platform.setProgress ? { setProgress: platform.setProgress.bind(platform) } : {}),
    });
    return manager;
  });

  const files = new FileGrants();
  const handout: FileHandout = { urlFor: (path) => opts.fileUrl(files.grant(path)) };
  const scanGrants = new ScanGrants();
  const { secrets } = platform;
  // One handler per channel: the Handlers type makes a missing one a compile error. Each is given only
  // the services it names.
  const handlers: Handlers = {
    ...appInfoHandlers({ platform }),
    ...profileHandlers({ profiles, secrets, events: bus }),
    ...connectionHandlers({
      profiles,
      secrets,
      localEngine: engine.get,
      engine: engineProcessor,
      logger,
    }),
    ...scanHandlers({
      scans,
      scanGrants,
      platform,
      // Web mode's copy of a removed scan goes unless a job or another card still needs it.
      forgotten: async (inputs) => (await jobs.get()).releaseDrops(inputs, 'scan removed'),
    }),
    ...jobHandlers({ jobs: jobs.get, profiles, engine: engineProcessor, scans, files: handout }),
    ...settingsHandlers({ settings, jobs: jobs.get, platform }),
  };

  return {
    platform,
    logger,
    bus,
    files,
    scanGrants,
    dispatch: createDispatcher(handlers, logger.child('dispatch')),
    async start() {
      await (await jobs.get()).resumeUnfinished();
    },
    async releaseDrops(drops) {
      if (drops.length > 0) await (await jobs.get()).releaseDrops(drops);
    },
    async dispose() {
      await sweeping;
      await (await jobs.peek()?.catch(() => undefined))?.close();
      await (await engine.peek()?.catch(() => undefined))?.close();
      await scans.dispose();
    },
  };
}
