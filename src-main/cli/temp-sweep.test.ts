// Archives unpacked by a process that was killed (kill -9 leaves its `scan2mesh-scans-<pid>-…` folder):
// removed at the start of the next process that opens the data folder, whatever it does (a review:
// they outlived `status`, `prune`, `remove` and a restart of web mode), and listed by `prune`.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCore } from '../app/core.js';
import { silentLogger } from '../logging/logger.js';
import { createKeytarSecretStore } from '../secrets/secret-store.js';

const project = resolve(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 's2m-temp-sweep-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The pid of a real process that has ended (pids are not reused this soon). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid!;
}

/** A folder as a killed process leaves it: named for its pid, holding an unpacked slice. */
function leftBy(pid: number, parent: string): string {
  const path = join(parent, `scan2mesh-scans-${pid}-aB3dE9`);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'DOE_JANE_0001.dcm'), 'patient data');
  return path;
}

/** The real command line from source, with its own data folder and system temporary folder. */
function cli(data: string, tmp: string, ...args: string[]): { status: number | null; stdout: string } {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(project, 'src-main', 'cli', 'cli.ts'), ...args],
    {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, SCAN2MESH_DATA_DIR: data, TMPDIR: tmp, SCAN2MESH_LOG_LEVEL: 'error' },
    },
  );
  return { status: r.status, stdout: r.stdout };
}

describe('unpacked scans a killed process left', () => {
  it('are removed by `status`, from the system temporary folder and the data folder', async () => {
    const data = join(work, 'status-data');
    const tmp = join(work, 'status-tmp');
    mkdirSync(tmp, { recursive: true });
    const pid = await deadPid();
    const left = [leftBy(pid, tmp), leftBy(pid, join(data, 'tmp', 'scans'))];
    expect(cli(data, tmp, 'status').status).toBe(0);
    for (const path of left) expect(existsSync(path)).toBe(false);
  });

  it('are removed and listed by `prune`', async () => {
    const data = join(work, 'prune-data');
    const tmp = join(work, 'prune-tmp');
    mkdirSync(tmp, { recursive: true });
    const left = leftBy(await deadPid(), tmp);
    const r = cli(data, tmp, 'prune', '--json');
    expect(r.status).toBe(0);
    const { removed } = JSON.parse(r.stdout) as { removed: { kind: string; path: string; bytes: number }[] };
    expect(removed).toEqual([{ kind: 'unpacked scan', path: left, bytes: 'patient data'.length, jobId: '' }]);
    expect(existsSync(left)).toBe(false);
  });

  it("are removed by the app's core as it starts, before anything is unpacked (web mode, the app)", async () => {
    const dataDir = join(work, 'core-data');
    const left = leftBy(await deadPid(), join(dataDir, 'tmp', 'scans'));
    const core = createCore(
      { transport: 'web', dataDir, secrets: createKeytarSecretStore('scan2mesh-test-temp-sweep') },
      { logger: silentLogger, fileUrl: (id) => `test://files/${id}` },
    );
    await core.dispose();
    expect(existsSync(left)).toBe(false);
  });
});
