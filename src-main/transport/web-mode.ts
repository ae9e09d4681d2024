import { join } from 'node:path';
import { createCore, type Core } from '../app/core.js';
import { createKeytarSecretStore, type SecretStore } from '../secrets/secret-store.js';
import { dataDir as defaultDataDir } from '../platform/paths.js';
import { rendererDir } from '../platform/app-paths.js';
import { revealWithSystemTools } from '../platform/reveal.js';
import { startWebServer, type RunningWebServer } from './web-server.js';
import { createLogger } from '../logging/logger.js';
import { stageLimitsFromEnv } from './web-stage.js';

export interface WebModeOptions {
  port?: number;
  dataDir?: string;
  token?: string;
  secrets?: SecretStore;
}

export interface RunningWebMode {
  core: Core;
  server: RunningWebServer;
  close(): Promise<void>;
}

/** The whole app without Electron: the core plus the loopback web transport. */
export async function startWebMode(opts: WebModeOptions = {}): Promise<RunningWebMode> {
  const dataDir = opts.dataDir ?? defaultDataDir();
  const logger = createLogger({ file: join(dataDir, 'logs', 'scan2mesh.log') });
  const core = createCore(
    {
      transport: 'web',
      dataDir,
      secrets: opts.secrets ?? createKeytarSecretStore(),
      revealInFolder: revealWithSystemTools,
    },
    { logger },
  );
  const server = await startWebServer({
    core,
    rendererDir: rendererDir(),
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.token !== undefined ? { token: opts.token } : {}),
    stagingDir: join(dataDir, 'staging'),
    stageLimits: stageLimitsFromEnv(process.env, (message) => logger.warn(message)),
  });
  logger.info('web mode started', { origin: server.origin });
  core.start().catch((e: unknown) => logger.error('resuming jobs failed', { error: String(e) }));
  return {
    core,
    server,
    async close() {
      await server.close();
      await core.dispose();
    },
  };
}
