import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { CLI_SWITCH } from './desktop-conventions.js';

// electron-builder.yml, read as a packaging engineer would: against electron-builder's own schema and
// source (node_modules/app-builder-lib), so that a wrong key or a lost default fails here, not at release.
const projectDir = resolve(import.meta.dirname, '..', '..');
const read = (path: string): string => readFileSync(join(projectDir, path), 'utf8');
const builderLib = join(projectDir, 'node_modules', 'app-builder-lib');

interface FileSet {
  from: string;
  to: string;
}
interface BuilderConfig {
  appId: string;
  files: string[];
  asarUnpack: string[];
  npmRebuild: boolean;
  beforePack: string;
  afterPack: string;
  electronFuses: Record<string, boolean>;
  linux: { extraResources: FileSet[] };
  deb: { depends: string[]; afterInstall: string; afterRemove: string };
  win: { extraResources: FileSet[] };
  nsis: { include: string };
  mac: {
    target: { target: string; arch: string[] }[];
    hardenedRuntime: boolean;
    entitlements: string;
    entitlementsInherit: string;
    extraResources: FileSet[];
  };
}
const config = load(read('electron-builder.yml')) as BuilderConfig;
const pkg = JSON.parse(read('package.json')) as {
  engines: { node: string };
  allowScripts: Record<string, boolean>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function schemaValidator(): (data: unknown) => string[] {
  const schema = JSON.parse(readFileSync(join(builderLib, 'scheme.json'), 'utf8')) as object;
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(schema);
  return (data) =>
    validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

/** electron-builder's default deb dependencies, read from its source: what `deb.depends` replaces. */
function defaultDebDepends(): string[] {
  const source = readFileSync(join(builderLib, 'out', 'targets', 'FpmTarget.js'), 'utf8');
  const list = /case "deb":\s*return (\[[^\]]*\])/.exec(
    source.slice(source.indexOf('getDefaultDepends(target) {')),
  );
  if (!list?.[1]) throw new Error('electron-builder no longer has getDefaultDepends: re-read FpmTarget');
  return JSON.parse(list[1]) as string[];
}

function plistKeys(path: string): string[] {
  return [...read(path).matchAll(/<key>([^<]+)<\/key>/g)].map((m) => m[1] as string);
}

describe('electron-builder.yml', () => {
  const validate = schemaValidator();

  it("is valid for electron-builder's own JSON schema, which refuses unknown keys", () => {
    expect(validate(config)).toEqual([]);
    expect(validate({ ...config, electronFuse: { runAsNode: false } }).join()).toMatch(/additional/);
    expect(validate({ ...config, deb: { ...config.deb, dependencies: [] } }).join()).toMatch(/additional/);
    expect(
      validate({ ...config, electronFuses: { ...config.electronFuses, runAsNod: false } }).join(),
    ).toMatch(/additional/);
  });

  it("keeps every default Linux dependency, adding keytar's libsecret", () => {
    const defaults = defaultDebDepends();
    expect(defaults).toContain('libnotify4');
    for (const d of defaults) expect(config.deb.depends).toContain(d);
    expect(config.deb.depends).toContain('libsecret-1-0');
    expect(new Set(config.deb.depends).size).toBe(config.deb.depends.length);
  });

  it('flips the fuses: no Node mode, no NODE_OPTIONS or --inspect, encrypted cookies, the asar only and checked', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('unpacks only native binaries and never rebuilds node_modules for Electron', () => {
    expect(config.asarUnpack).toEqual(['**/*.node']);
    expect(config.npmRebuild).toBe(false);
    expect(config).not.toHaveProperty('buildDependenciesFromSource');
    expect(config.files).toContain('!**/node_modules/better-sqlite3/{build,deps,src}/**');
  });

  it('signs the macOS app with the hardened runtime, the JIT entitlement only, for arm64 and x64', async () => {
    expect(config.mac.hardenedRuntime).toBe(true);
    expect(config.mac.entitlements).toBe('assets/entitlements.mac.plist');
    expect(config.mac.entitlementsInherit).toBe('assets/entitlements.mac.plist');
    expect(plistKeys(config.mac.entitlements)).toEqual(['com.apple.security.cs.allow-jit']);
    expect(config.mac.target).toEqual([{ target: 'dmg', arch: ['arm64', 'x64'] }]);
  });

  it('ships the scan2mesh command: on the PATH from the deb, optionally from NSIS, beside the app on macOS', () => {
    const launcher = { from: 'assets/cli/scan2mesh', to: 'bin/scan2mesh' };
    expect(config.linux.extraResources).toContainEqual(launcher);
    expect(config.mac.extraResources).toContainEqual(launcher);
    accessSync(join(projectDir, launcher.from), constants.X_OK);
    expect(read(launcher.from)).toContain(`${CLI_SWITCH} -- "$@"`);

    // The deb's scripts are electron-builder's own, with /usr/bin/scan2mesh pointing at the launcher.
    const template = readFileSync(join(builderLib, 'templates', 'linux', 'after-install.tpl'), 'utf8');
    const ours = read(config.deb.afterInstall);
    for (const line of template
      .split('\n')
      .filter((l) => !l.includes("/opt/${sanitizedProductName}/${executable}'"))) {
      expect(ours).toContain(line);
    }
    expect(ours).toContain(
      "update-alternatives --install '/usr/bin/${executable}' '${executable}' '/opt/${sanitizedProductName}/resources/bin/scan2mesh'",
    );
    expect(read(config.deb.afterRemove)).toContain(
      "update-alternatives --remove '${executable}' '/opt/${sanitizedProductName}/resources/bin/scan2mesh'",
    );

    expect(config.win.extraResources).toContainEqual({
      from: 'assets/cli/scan2mesh.cmd',
      to: 'bin/scan2mesh.cmd',
    });
    expect(read('assets/cli/scan2mesh.cmd')).toContain(`${CLI_SWITCH} -- %*`);
    const nsis = read(config.nsis.include);
    expect(nsis).toMatch(/!macro customInstall[\s\S]*MessageBox MB_YESNO[\s\S]*\$INSTDIR\\resources\\bin/);
    expect(nsis).toMatch(/!macro customUnInstall[\s\S]*\$INSTDIR\\resources\\bin/);
    expect(read('README.md')).toContain('/Applications/scan2mesh.app/Contents/Resources/bin/scan2mesh');
  });

  it('runs the hooks that build the native modules for Electron apart from node_modules', async () => {
    expect(config.beforePack).toBe('./src-main/electron/packaging/hooks.mjs');
    expect(config.afterPack).toBe(config.beforePack);
    const hooks = (await import(join(projectDir, config.beforePack))) as Record<string, unknown>;
    expect(typeof hooks.beforePack).toBe('function');
    expect(typeof hooks.afterPack).toBe('function');
  });

  it("refuses a native build made with Node's headers as an Electron build", async () => {
    const { assertBuiltForElectron, electronVersion } = (await import(
      join(projectDir, 'src-main', 'electron', 'packaging', 'native-build.mjs')
    )) as {
      assertBuiltForElectron(projectDir: string, modulesRoot: string, version: string): Promise<void>;
      electronVersion(projectDir: string): string;
    };
    // What node-gyp records for a compile against this Node's headers (as a stray nodedir would cause).
    const root = mkdtempSync(join(tmpdir(), 'scan2mesh-gypi-'));
    try {
      const build = join(root, 'node_modules', 'better-sqlite3', 'build');
      mkdirSync(build, { recursive: true });
      writeFileSync(
        join(build, 'config.gypi'),
        `{ "variables": { "node_module_version": ${process.versions.modules}, "nodedir": "/usr" } }\n`,
      );
      await expect(assertBuiltForElectron(projectDir, root, electronVersion(projectDir))).rejects.toThrow(
        new RegExp(`better-sqlite3 was compiled for ABI ${process.versions.modules}, not Electron`),
      );
      // A prebuilt binary (no config.gypi) was chosen by Electron's ABI: accepted.
      rmSync(join(build, 'config.gypi'));
      await expect(
        assertBuiltForElectron(projectDir, root, electronVersion(projectDir)),
      ).resolves.toBeUndefined();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('uses the appId that the app gives Windows as its AppUserModelID', async () => {
    const { APP_USER_MODEL_ID } = await import('./desktop-conventions.js');
    expect(config.appId).toBe(APP_USER_MODEL_ID);
  });
});

describe('package.json', () => {
  it('names a homepage and an author with an email, without which electron-builder refuses the deb', () => {
    // FpmTarget.computeFpmMetaInfoOptions: "Please specify project homepage" / author email missing.
    const meta = pkg as { homepage?: string; author?: { email?: string } };
    expect(meta.homepage).toMatch(/^https:\/\//);
    expect(meta.author?.email).toMatch(/@/);
  });

  it('keeps the renderer-only libraries out of the runtime dependencies (Vite bundles them)', () => {
    for (const lib of ['react', 'react-dom', 'three', 'zustand']) {
      expect(pkg.dependencies).not.toHaveProperty(lib);
      expect(pkg.devDependencies).toHaveProperty(lib);
    }
  });

  it('needs none of them at run time: no shipped main-process or shared module imports them', () => {
    const shipped = (dir: string): string[] =>
      readdirSync(join(projectDir, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.(ts|mjs)$/.test(f) && !/\.test(-support)?\.ts$/.test(f))
        .map((f) => join(dir, f));
    const importers = [...shipped('src-main'), ...shipped('src-shared')].filter((f) =>
      /from '(react|react-dom|three|zustand)(\/[^']*)?'|import\('(react|three|zustand)/.test(read(f)),
    );
    expect(importers).toEqual([]);
  });

  it("lets Electron's install script run: ELECTRON_SKIP_BINARY_DOWNLOAD alone skips the download", () => {
    expect(pkg.allowScripts.electron).toBe(true);
  });

  it('asks for the Node version that the build tools need, as the README does', () => {
    const minimum = (range: string): number => {
      const m = /^>=\s*(\d+)(?:\.(\d+))?/.exec(range);
      if (!m) throw new Error(`unexpected engines range ${range}`);
      return Number(m[1]) * 1000 + Number(m[2] ?? 0);
    };
    const ours = minimum(pkg.engines.node);
    // @electron/rebuild (packaging, `npm start`) and the node-abi it resolves refuse older Node versions.
    const rebuildDir = join(projectDir, 'node_modules', '@electron', 'rebuild');
    const nested = join(rebuildDir, 'node_modules', 'node-abi', 'package.json');
    const nodeAbi = existsSync(nested)
      ? nested
      : join(projectDir, 'node_modules', 'node-abi', 'package.json');
    const tools = [join(rebuildDir, 'package.json'), nodeAbi];
    for (const file of tools) {
      const their = JSON.parse(readFileSync(file, 'utf8')) as { engines: { node: string } };
      expect(ours, file).toBeGreaterThanOrEqual(minimum(their.engines.node));
    }
    const [major, minor] = /^>=\s*(\d+\.\d+)/.exec(pkg.engines.node)?.[1]?.split('.') ?? [];
    expect(read('README.md')).toContain(`Node.js ${major}.${minor} or newer`);
  });
});
