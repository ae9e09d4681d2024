import type { Handlers } from '../dispatch.js';
import type { Core } from '../core.js';
import { join } from 'node:path';
import { APP_VERSION } from '../version.js';

export function appInfoHandlers(core: Core): Pick<Handlers, 'app.info'> {
  return {
    'app.info': async () => ({
      name: 'scan2mesh' as const,
      version: APP_VERSION,
      transport: core.platform.transport,
      platform: process.platform,
      dataDir: core.platform.dataDir,
      logsDir: join(core.platform.dataDir, 'logs'),
      nativeDialogs: core.platform.chooseScans !== undefined,
    }),
  };
}
