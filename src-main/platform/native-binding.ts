import { existsSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../../src-shared/errors.js';

const here = dirname(fileURLToPath(import.meta.url));
const isBundled = typeof __BUNDLED__ !== 'undefined' && __BUNDLED__;

/** dist/: beside the bundle (dist/main -> dist), or the project's dist/ when the source runs. */
function defaultDistDir(): string {
  return isBundled ? resolve(here, '..') : resolve(here, '..', '..', 'dist');
}

interface RuntimeInfo {
  versions: NodeJS.ProcessVersions;
  platform: NodeJS.Platform;
  arch: string;
}

/**
 * The better-sqlite3 binary to load, for its `nativeBinding` option. Under Node (the command line, tests,
 * web mode) undefined: the module's own build in node_modules. Under Electron, whose ABI differs, the build
 * made for it apart from node_modules (src-main/electron/packaging/native-build.mjs, run by `npm start` and
 * at packaging), so neither runtime ever rebuilds the other's module.
 */
export function sqliteNativeBinding(
  runtime: RuntimeInfo = process,
  distDir: string = defaultDistDir(),
): string | undefined {
  if (!runtime.versions.electron) return undefined;
  const file = join(distDir, 'native', `electron-${runtime.platform}-${runtime.arch}`, 'better_sqlite3.node');
  // In the installed app the file lies outside the archive (asarUnpack: **/*.node); a binary is loaded
  // from the real file, so the path names it there.
  const real = file.replace(`${sep}app.asar${sep}`, `${sep}app.asar.unpacked${sep}`);
  if (!existsSync(real)) {
    throw new AppError(
      'internal',
      'The job list cannot be opened: this copy of the app lacks its database module.',
      {
        action:
          'Reinstall scan2mesh. When running from source, start it with `npm start`, which builds the module for Electron.',
      },
    );
  }
  return real;
}
