import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runWebMode } from '../cli/commands/web.js';

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

const binary = electronBinary();
if (binary) {
  const appRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const child = spawn(binary, [appRoot, ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  process.stdout.write('The Electron runtime is not installed on this machine; starting web mode instead.\n');
  runWebMode({}).catch((e: unknown) => {
    process.stderr.write(`scan2mesh: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
