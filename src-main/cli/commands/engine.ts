import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startDefaultEngine } from '../../engine/default-engine.js';
import { dataDir } from '../../platform/paths.js';
import { privateDir } from '../../platform/private-files.js';
import { cliLogger } from '../cli-logger.js';

export const ENGINE_SECRET_ENV = 'SCAN2MESH_ENGINE_SECRET';

/** What randomBytes(32) gives in base64url: 43 characters. */
const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The secret the engine accepts: from SCAN2MESH_ENGINE_SECRET, or made here and written to a file only
 * the user can read. It is never printed: terminals are scrolled back, recorded and shared.
 */
export async function engineSecret(
  env: NodeJS.ProcessEnv,
  dir: string,
): Promise<{ secret: string; source: 'environment' | 'file'; file?: string }> {
  const fromEnv = env[ENGINE_SECRET_ENV];
  if (fromEnv) return { secret: fromEnv, source: 'environment' };
  // The data folder: private whoever makes it first (a review found it 0755 when `engine` did).
  await privateDir(dir);
  const file = join(dir, 'engine-client-secret');
  // A second engine on the same data folder keeps the secret the first one printed its recipe with:
  // a new one in the file made that recipe fail with 401 (a review). Only one this code made is kept.
  const kept = (await readFile(file, 'utf8').catch(() => '')).trim();
  const secret = SECRET_SHAPE.test(kept) ? kept : randomBytes(32).toString('base64url');
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  // writeFile keeps the mode of a file that exists already.
  await chmod(file, 0o600);
  return { secret, source: 'file', file };
}

export interface EngineOptions {
  port?: number;
  dataDir?: string;
  json?: boolean;
  verbose?: boolean;
}

/** `scan2mesh engine`: runs the engine until Ctrl+C, after printing how to reach it (never its secret). */
export async function runEngine(opts: EngineOptions): Promise<void> {
  const logger = cliLogger(opts.verbose);
  const { secret, source, file } = await engineSecret(process.env, dataDir());
  const engine = await startDefaultEngine({
    logger,
    clientSecret: secret,
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
  });
  const info = {
    baseUrl: engine.baseUrl,
    authUrl: engine.authUrl,
    audience: engine.audience,
    clientId: engine.clientId,
    secretFrom: source === 'file' ? file : ENGINE_SECRET_ENV,
  };
  if (opts.json) process.stdout.write(`${JSON.stringify(info)}\n`);
  else {
    const secretLine =
      source === 'file' ? `in ${file} (readable only by you)` : `the value of ${ENGINE_SECRET_ENV}`;
    const secretExpr = source === 'file' ? `"$(cat '${file}')"` : `"$${ENGINE_SECRET_ENV}"`;
    process.stdout.write(
      [
        'The scan2mesh local engine is running.',
        `  base address   ${info.baseUrl}`,
        `  auth address   ${info.authUrl}`,
        `  audience       ${info.audience}`,
        `  client id      ${info.clientId}`,
        `  client secret  ${secretLine}`,
        '',
        'Use it from another terminal, e.g.:',
        `  SCAN2MESH_CLIENT_SECRET=${secretExpr} scan2mesh test-auth --base-url ${info.baseUrl} --auth-url ${info.authUrl} --audience ${info.audience} --client-id ${info.clientId}`,
        '',
        'Press Ctrl+C to stop.',
        '',
      ].join('\n'),
    );
  }
  await new Promise<void>((done) => {
    const stop = (): void => {
      void engine.close().then(done);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
