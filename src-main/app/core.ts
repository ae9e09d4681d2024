import { join } from 'node:path';
import type { Platform } from './platform.js';
import { EventBus } from './event-bus.js';
import { createDispatcher, type Dispatch, type Handlers } from './dispatch.js';
import { ProfileStore } from '../settings/profile-store.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { profileHandlers } from './handlers/profiles.js';
import { appInfoHandlers } from './handlers/app-info.js';

/** The app's core: the same for the Electron window, web mode and tests. Transports only carry it. */
export interface Core {
  platform: Platform;
  logger: Logger;
  bus: EventBus;
  profiles: ProfileStore;
  dispatch: Dispatch;
  dispose(): Promise<void>;
}

export function createCore(platform: Platform, opts: { logger?: Logger } = {}): Core {
  const logger = opts.logger ?? createLogger({ file: join(platform.dataDir, 'logs', 'scan2mesh.log') });
  const disposers: (() => Promise<void> | void)[] = [];
  const core: Core = {
    platform,
    logger,
    bus: new EventBus(),
    profiles: new ProfileStore(platform.dataDir, logger.child('profiles')),
    dispatch: undefined as unknown as Dispatch,
    async dispose() {
      for (const d of disposers.reverse()) await d();
    },
  };
  // One handler per channel: the Handlers type makes a missing one a compile error.
  const handlers: Handlers = {
    ...appInfoHandlers(core),
    ...profileHandlers(core),
  };
  core.dispatch = createDispatcher(handlers, logger.child('dispatch'));
  return core;
}
