import { join } from 'node:path';
import { createCore, type Core } from '../app/core.js';
import { createKeytarSecretStore, type SecretStore } from '../secrets/secret-store.js';
import { dataDir as defaultDataDir } from '../platform/paths.js';
import { checkDataFolder } from '../platform/folder-problem.js';
import { rendererDir } from '../platform/app-paths.js';
import { revealWithSystemTools } from '../platform/reveal.js';
import { startWebServer, webFileUrl, type RunningWebServer } from './web-server.js';
import { createLogger } from '../logging/logger.js';
import { stageLimitsFromEnv } from './web-stage.js';

interface WebModeOptions {
  port?: number;
  dataDir?: string;
  token?: string;
  secrets?: SecretStore;
}

interface RunningWebMode {
  core: Core;
  server: RunningWebServer;
  /** What was wrong in the environment's settings (a staging limit that is no number): said at start. */
  warnings: string[];
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
    { logger, fileUrl: webFileUrl },
  );
  const warnings: string[] = [];
  const stageLimits = stageLimitsFromEnv(process.env, (message) => {
    logger.warn(message);
    warnings.push(message);
  });
  let server: RunningWebServer;
  try {
    server = await startWebServer({
      core,
      rendererDir: rendererDir(),
      ...(opts.port !== undefined ? { port: opts.port } : {}),
      ...(opts.token !== undefined ? { token: opts.token } : {}),
      stagingDir: join(dataDir, 'staging'),
      stageLimits,
    });
  } catch (e) {
    // A port in use: the core made for it goes too, or its timers kept the command from ending.
    await core.dispose();
    throw e;
  }
  logger.info('web mode started', { origin: server.origin });
  core.start().catch((e: unknown) => logger.error('resuming jobs failed', { error: String(e) }));
  return {
    core,
    server,
    warnings,
    async close() {
      await server.close();
      // Copies of patient data the page dropped and never submitted: no page can use them now.
      await core.releaseDrops(server.stagedDrops());
      await core.dispose();
    },
  };
}

/**
 * Runs web mode until Ctrl+C (SIGINT or SIGTERM), telling the user where to open it; shared by
 * `scan2mesh web` and `npm start` without Electron.
 */
export async function runWebMode(opts: { port?: number }): Promise<void> {
  // Before it says it is running: its page showed only "Internal error" on an unusable data folder.
  await checkDataFolder(defaultDataDir());
  const web = await startWebMode(opts.port !== undefined ? { port: opts.port } : {});
  // Only logged, a mistyped limit went unseen (a review): the terminal that started it is told too.
  for (const w of web.warnings) process.stderr.write(`scan2mesh: ${w}\n`);
  process.stdout.write(
    `scan2mesh is running in web mode. Open this address in your browser:\n\n  ${web.server.url}\n\n`,
  );
  process.stdout.write('It works only on this computer and only with this address. Press Ctrl+C to stop.\n');
  await new Promise<void>((done) => {
    const stop = (): void => {
      void web.close().then(done);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
