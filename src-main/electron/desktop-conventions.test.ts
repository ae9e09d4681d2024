import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JobView } from '../../src-shared/jobs.js';
import { dataDir } from '../platform/paths.js';
import { sqliteNativeBinding } from '../platform/native-binding.js';
import { isAppError } from '../../src-shared/errors.js';
import {
  CLI_SWITCH,
  cliArgvFrom,
  desktopDataDir,
  quitsWhenAllWindowsClosed,
  reopensWindowOnActivate,
} from './desktop-conventions.js';
import { PowerSaveGuard, type PowerSaveBlockerLike } from './power-save.js';
import { ELECTRON_INSTALL_COMMAND, runtimeMissingLine } from './start-messages.js';
// @ts-expect-error: a plain .mjs build script without type declarations
import { nativeDir } from './packaging/native-build.mjs';

describe('the command line inside the app binary', () => {
  it('runs the arguments after the switch as the CLI, leaving out the `--` that protects them from Chromium', () => {
    expect(cliArgvFrom(['/opt/scan2mesh/scan2mesh', CLI_SWITCH, '--', 'status', '--json'])).toEqual([
      '/opt/scan2mesh/scan2mesh',
      'scan2mesh',
      'status',
      '--json',
    ]);
    expect(
      cliArgvFrom(['/x/scan2mesh', '--ozone-platform=headless', CLI_SWITCH, '--', '--help'])?.slice(2),
    ).toEqual(['--help']);
  });

  it('opens the window when started without the switch', () => {
    expect(cliArgvFrom(['/opt/scan2mesh/scan2mesh'])).toBeNull();
    expect(cliArgvFrom(['/path/electron', '/path/app', 'status'])).toBeNull();
  });
});

describe('window and data-folder conventions', () => {
  it('keeps running without a window on macOS only, and reopens one when the Dock icon is clicked', () => {
    expect(quitsWhenAllWindowsClosed('darwin')).toBe(false);
    expect(quitsWhenAllWindowsClosed('linux')).toBe(true);
    expect(quitsWhenAllWindowsClosed('win32')).toBe(true);
    expect(reopensWindowOnActivate(0)).toBe(true);
    expect(reopensWindowOnActivate(1)).toBe(false);
  });

  it('uses SCAN2MESH_DATA_DIR exactly as the command line does, else Electron’s userData folder', () => {
    const env = { SCAN2MESH_DATA_DIR: '/srv/portable/scan2mesh-data' };
    expect(desktopDataDir(env, '/home/u/.config/scan2mesh')).toBe(dataDir(env));
    expect(desktopDataDir(env, '/home/u/.config/scan2mesh')).toBe('/srv/portable/scan2mesh-data');
    expect(desktopDataDir({}, '/home/u/.config/scan2mesh')).toBe('/home/u/.config/scan2mesh');
  });
});

describe('power-save blocker while jobs run', () => {
  function fakeBlocker(): PowerSaveBlockerLike & { active: Set<number>; starts: string[] } {
    let next = 0;
    const active = new Set<number>();
    const starts: string[] = [];
    return {
      active,
      starts,
      start(type) {
        starts.push(type);
        active.add(++next);
        return next;
      },
      stop(id) {
        if (!active.delete(id)) throw new Error(`stop(${id}) for a blocker that is not running`);
      },
    };
  }
  const job = (id: string, state: JobView['state']): JobView => ({ id, state }) as JobView;

  it('blocks sleep from the first unfinished job until the last one ends, once', () => {
    const blocker = fakeBlocker();
    const guard = new PowerSaveGuard(blocker);
    guard.onJobsChanged({ jobs: [job('a', 'queued'), job('b', 'queued')], paused: false });
    expect(guard.blocking).toBe(true);
    guard.onJobsChanged({ jobs: [job('a', 'uploading')], paused: false });
    guard.onJobsChanged({ jobs: [job('a', 'done')], paused: false });
    expect(blocker.active.size).toBe(1);
    guard.onJobsChanged({ jobs: [job('b', 'failed')], paused: false });
    expect(guard.blocking).toBe(false);
    expect(blocker.active.size).toBe(0);
    expect(blocker.starts).toEqual(['prevent-app-suspension']);
  });

  it('lets the computer sleep while the queue is paused, and blocks again when it resumes', () => {
    const blocker = fakeBlocker();
    const guard = new PowerSaveGuard(blocker);
    guard.onJobsChanged({ jobs: [job('a', 'queued')], paused: false });
    guard.onJobsChanged({ jobs: [], paused: true });
    expect(blocker.active.size).toBe(0);
    guard.onJobsChanged({ jobs: [], paused: false });
    expect(blocker.active.size).toBe(1);
    guard.dispose();
    expect(blocker.active.size).toBe(0);
  });
});

describe('npm start without the Electron runtime', () => {
  it('says in one line why, and how to install the runtime', () => {
    for (const env of [{ ELECTRON_SKIP_BINARY_DOWNLOAD: '1' }, {}]) {
      const line = runtimeMissingLine(env);
      expect(line.trimEnd().split('\n')).toHaveLength(1);
      expect(line).toContain(ELECTRON_INSTALL_COMMAND);
      expect(line).toContain('web mode');
    }
    expect(runtimeMissingLine({ ELECTRON_SKIP_BINARY_DOWNLOAD: '1' })).toContain(
      'ELECTRON_SKIP_BINARY_DOWNLOAD',
    );
  });
});

describe('better-sqlite3 for two runtimes', () => {
  const project = mkdtempSync(join(tmpdir(), 'scan2mesh-native-'));
  const dist = join(project, 'dist');
  afterAll(() => rmSync(project, { recursive: true, force: true }));
  const electron = {
    versions: { ...process.versions, electron: '41.7.1' },
    platform: 'linux' as const,
    arch: 'x64',
  };

  it('loads the module’s own build under Node', () => {
    expect(sqliteNativeBinding(process, dist)).toBeUndefined();
  });

  it('loads the Electron build from the folder the build script fills, from the unpacked copy when packaged', () => {
    // The build script (native-build.mjs) and the app (platform/native-binding.ts) agree on the folder.
    const built = nativeDir(project, 'linux', 'x64') as string;
    mkdirSync(built, { recursive: true });
    writeFileSync(join(built, 'better_sqlite3.node'), '');
    expect(sqliteNativeBinding(electron, dist)).toBe(join(built, 'better_sqlite3.node'));

    const packaged = join(project, 'resources', 'app.asar', 'dist');
    const unpacked = join(project, 'resources', 'app.asar.unpacked', 'dist', 'native', 'electron-linux-x64');
    mkdirSync(unpacked, { recursive: true });
    writeFileSync(join(unpacked, 'better_sqlite3.node'), '');
    expect(sqliteNativeBinding(electron, packaged)).toBe(join(unpacked, 'better_sqlite3.node'));
  });

  it('says what to do when the Electron build is missing, instead of a loader error', () => {
    try {
      sqliteNativeBinding({ ...electron, arch: 'arm64' }, dist);
      expect.unreachable();
    } catch (e) {
      expect(isAppError(e) && e.action).toMatch(/npm start/);
    }
  });
});
