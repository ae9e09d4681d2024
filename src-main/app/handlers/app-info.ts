import { join } from 'node:path';
import type { Handlers } from '../dispatch.js';
import type { Platform } from '../platform.js';
import { APP_VERSION } from '../version.js';

interface AppInfoDeps {
  platform: Pick<Platform, 'transport' | 'dataDir' | 'chooseScans'>;
}

export function appInfoHandlers({ platform }: AppInfoDeps): Pick<Handlers, 'app.info'> {
  return {
    'app.info': async () => ({
      name: 'scan2mesh' as const,
      version: APP_VERSION,
      transport: platform.transport,
      platform: process.platform,
      dataDir: platform.dataDir,
      logsDir: join(platform.dataDir, 'logs'),
      nativeDialogs: platform.chooseScans !== undefined,
    }),
  };
}
