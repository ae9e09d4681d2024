// Native modules for the Electron runtime, built apart from the project's node_modules.
//
// node_modules keeps better-sqlite3 built for Node: the command line, vitest and web mode use it. The
// Electron app loads its own build from dist/native/electron-<platform>-<arch>/, which this script makes
// with @electron/rebuild from a copy of the module. Neither build ever replaces the other, so `npm start`,
// packaging and `npm test` can follow each other in any order, and a package can be built for another
// platform or CPU wherever prebuilt binaries can be downloaded.
//
// keytar uses N-API: its binary is the same for Node and Electron, so only a package for another platform
// or CPU needs a different one (built here too, and swapped in by the afterPack hook).
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const PROJECT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const NATIVE_MODULES = /** @type {const} */ ({
  'better-sqlite3': 'better_sqlite3.node',
  keytar: 'keytar.node',
});

/** Where the app looks for its Electron builds; mirrors src-main/platform/native-binding.ts. */
export function nativeDir(projectDir, platform, arch) {
  return join(projectDir, 'dist', 'native', `electron-${platform}-${arch}`);
}

function versionOf(projectDir, pkg) {
  return JSON.parse(readFileSync(join(projectDir, 'node_modules', pkg, 'package.json'), 'utf8')).version;
}

/** The Electron version the app runs on: the installed package's, which exists even without its binary. */
export function electronVersion(projectDir = PROJECT_DIR) {
  return versionOf(projectDir, 'electron');
}

/**
 * Builds better-sqlite3 and keytar for Electron `version` on `platform`/`arch` into nativeDir(), unless the
 * builds there were made for exactly these versions. Returns the folder.
 */
export async function buildElectronNatives({
  projectDir = PROJECT_DIR,
  version = electronVersion(projectDir),
  platform = process.platform,
  arch = process.arch,
  log = (line) => process.stderr.write(`${line}\n`),
} = {}) {
  const out = nativeDir(projectDir, platform, arch);
  const stamp = {
    electron: version,
    platform,
    arch,
    ...Object.fromEntries(Object.keys(NATIVE_MODULES).map((m) => [m, versionOf(projectDir, m)])),
  };
  const stampFile = join(out, 'build.json');
  const built =
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8') === JSON.stringify(stamp) &&
    Object.values(NATIVE_MODULES).every((f) => existsSync(join(out, f)));
  if (built) return out;

  log(
    `scan2mesh: building native modules for Electron ${version} (${platform}-${arch}); node_modules is left as it is`,
  );
  // The staging folder sits inside node_modules so that the copies resolve their build tools
  // (node-gyp, node-addon-api, prebuild-install) from the project, as the originals do.
  const staging = join(
    projectDir,
    'node_modules',
    '.cache',
    'scan2mesh-electron-native',
    `${platform}-${arch}`,
  );
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(join(staging, 'node_modules'), { recursive: true });
  for (const m of Object.keys(NATIVE_MODULES)) {
    const from = join(projectDir, 'node_modules', m);
    // The Node build stays behind: the copy is built afresh for Electron.
    cpSync(from, join(staging, 'node_modules', m), {
      recursive: true,
      filter: (src) => !src.startsWith(join(from, 'build')),
    });
  }
  writeFileSync(
    join(staging, 'package.json'),
    JSON.stringify({
      name: 'scan2mesh-electron-native',
      private: true,
      dependencies: Object.fromEntries(Object.keys(NATIVE_MODULES).map((m) => [m, stamp[m]])),
    }),
  );
  // npm passes its own config to scripts as npm_config_* variables; Debian's npm sets nodedir=/usr, which
  // would make node-gyp compile against Node's headers and yield a binary Electron cannot load.
  for (const key of Object.keys(process.env)) {
    if (/^npm_config_(nodedir|target|runtime|disturl|dist_url|arch|platform)$/i.test(key))
      delete process.env[key];
  }
  try {
    const { rebuild } = await import('@electron/rebuild');
    // Prebuilt binaries when they can be downloaded, else a compile against Electron's headers.
    await rebuild({
      buildPath: staging,
      electronVersion: version,
      platform,
      arch,
      onlyModules: Object.keys(NATIVE_MODULES),
      force: true,
    });
    await assertBuiltForElectron(projectDir, staging, version);
    mkdirSync(out, { recursive: true });
    for (const [m, file] of Object.entries(NATIVE_MODULES)) {
      copyFileSync(join(staging, 'node_modules', m, 'build', 'Release', file), join(out, file));
    }
    writeFileSync(stampFile, JSON.stringify(stamp));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return out;
}

/**
 * A module compiled here records the headers it was compiled against in build/config.gypi: refuse a
 * binary built for Node's ABI (a stray nodedir setting does that silently). Downloaded prebuilt binaries
 * have no config.gypi; prebuild-install chose them by Electron's ABI.
 */
export async function assertBuiltForElectron(projectDir, staging, version) {
  const rebuildPkg = join(projectDir, 'node_modules', '@electron', 'rebuild', 'package.json');
  const nodeAbi = createRequire(rebuildPkg).resolve('node-abi');
  const { getAbi } = await import(pathToFileURL(nodeAbi).href);
  const expected = Number(getAbi(version, 'electron'));
  for (const m of Object.keys(NATIVE_MODULES)) {
    const gypi = join(staging, 'node_modules', m, 'build', 'config.gypi');
    if (!existsSync(gypi)) continue;
    const abi = Number(/"node_module_version":\s*(\d+)/.exec(readFileSync(gypi, 'utf8'))?.[1]);
    if (abi !== expected) {
      throw new Error(`${m} was compiled for ABI ${abi}, not Electron ${version}'s ${expected}`);
    }
  }
}

// `node src-main/electron/packaging/native-build.mjs [platform] [arch]`: the build on its own.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [platform = process.platform, arch = process.arch] = process.argv.slice(2);
  buildElectronNatives({ platform, arch }).then(
    (dir) => process.stdout.write(`${dir}\n`),
    (e) => {
      process.stderr.write(`scan2mesh: the native modules could not be built for Electron: ${e.message}\n`);
      process.exitCode = 1;
    },
  );
}
