import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nativeBuildFailedLine, runtimeMissingLine } from './start-messages.js';

/**
 * `npm start`: the Electron app when its runtime is installed; otherwise one line saying so, then web mode,
 * so that machines that cannot download Electron's binary still run the app.
 */
function electronBinary(): string | null {
  try {
    // In plain Node the electron package exports the path of its binary, and throws when it was never downloaded.
    const path = createRequire(import.meta.url)('electron') as unknown;
    return typeof path === 'string' && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

/**
 * The Electron builds of the native modules, made apart from node_modules (which stays built for Node, for
 * the command line and the tests); quick when they are already there.
 */
function buildNativeModules(appRoot: string): boolean {
  const script = join(appRoot, 'src-main', 'electron', 'packaging', 'native-build.mjs');
  const r = spawnSync(process.execPath, [script], { cwd: appRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  return r.status === 0;
}

function startWebMode(): void {
  // Loaded only here: with Electron installed this process just starts it, and needs none of the app.
  import('../transport/web-mode.js')
    .then(({ runWebMode }) => runWebMode({}))
    .catch((e: unknown) => {
      process.stderr.write(`scan2mesh: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    });
}

const binary = electronBinary();
const appRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
if (!binary) {
  process.stdout.write(runtimeMissingLine(process.env));
  startWebMode();
} else if (!buildNativeModules(appRoot)) {
  process.stdout.write(nativeBuildFailedLine());
  startWebMode();
} else {
  const child = spawn(binary, [appRoot, ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
}
