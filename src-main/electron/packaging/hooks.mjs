// electron-builder hooks (electron-builder.yml: beforePack, afterPack). They keep the project's
// node_modules built for Node: the Electron builds of the native modules are made apart (native-build.mjs).
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildElectronNatives, nativeDir, PROJECT_DIR } from './native-build.mjs';

// electron-builder's Arch enum (builder-util): the index is what the hooks receive.
const ARCH_NAMES = ['ia32', 'x64', 'armv7l', 'arm64', 'universal'];

function target(context) {
  return { platform: context.electronPlatformName, arch: ARCH_NAMES[context.arch] ?? String(context.arch) };
}

/** Before the app's files are copied: better-sqlite3 and keytar for Electron on the target, into dist/native. */
export async function beforePack(context) {
  const { platform, arch } = target(context);
  if (arch === 'universal') {
    throw new Error('scan2mesh packages one architecture at a time (mac: arm64 and x64 dmg), not universal.');
  }
  await buildElectronNatives({
    projectDir: PROJECT_DIR,
    version: context.packager.config.electronVersion ?? undefined,
    platform,
    arch,
  });
}

/**
 * After the files are in place, before signing: the unpacked keytar binary comes from node_modules, built
 * for the machine that packs; the target's own build replaces it (the same file for the host's own
 * platform and CPU, since keytar uses N-API).
 */
export async function afterPack(context) {
  const { platform, arch } = target(context);
  const built = join(nativeDir(PROJECT_DIR, platform, arch), 'keytar.node');
  const resources =
    platform === 'darwin'
      ? join(context.appOutDir, `${context.packager.appInfo.productFilename}.app`, 'Contents', 'Resources')
      : join(context.appOutDir, 'resources');
  const shipped = join(
    resources,
    'app.asar.unpacked',
    'node_modules',
    'keytar',
    'build',
    'Release',
    'keytar.node',
  );
  if (!existsSync(built) || !existsSync(shipped)) {
    throw new Error(`keytar's build for ${platform}-${arch} is missing (${built} or ${shipped}).`);
  }
  copyFileSync(built, shipped);
}
