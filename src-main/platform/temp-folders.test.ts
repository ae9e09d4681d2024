import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  chownSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yazl from 'yazl';
import { afterAll, describe, expect, it } from 'vitest';
import { createOwnedTempFolder, STALE_AFTER_MS, sweepStaleTempFolders } from './temp-folders.js';

const root = mkdtempSync(join(tmpdir(), 's2m-temp-folders-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshParent = (): string => {
  const p = join(root, `parent-${++n}`);
  mkdirSync(p);
  return p;
};
const POSIX = process.platform !== 'win32';

/** The pid of a real process that has ended (pids are not reused this soon). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid!;
}

/** A real process that lives until killed. */
function liveProcess(): ChildProcess {
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
}

async function folder(parent: string, name: string, ageMs = 0): Promise<string> {
  const path = join(parent, name);
  mkdirSync(path, { recursive: true });
  await writeFile(join(path, 'slice.dcm'), 'patient data');
  const when = new Date(Date.now() - ageMs);
  await utimes(path, when, when);
  return path;
}

describe('sweepStaleTempFolders', () => {
  it("removes the folders of ended processes and those untouched for a day, never a live process's", async () => {
    const parent = freshParent();
    const live = liveProcess();
    try {
      const dead = await deadPid();
      const day = STALE_AFTER_MS + 60_000;
      const deadOwner = await folder(parent, `scan2mesh-scans-${dead}-aB3dE9`);
      const deadEngine = await folder(parent, `scan2mesh-engine-${dead}-Zz9Yy8`);
      const liveOwner = await folder(parent, `scan2mesh-engine-${live.pid}-Qw1Er2`);
      // A live pid on a folder a day old: the pid was reused by another program.
      const reused = await folder(parent, `scan2mesh-scans-${live.pid}-Rt5Yu6`, day);
      // This process's pid, on a folder it did not make: an earlier process had the same pid.
      const earlierSelf = await folder(parent, `scan2mesh-scans-${process.pid}-Ui7Op8`);
      // Named as before folders carried a pid: only their age tells.
      const unnamedYoung = await folder(parent, 'scan2mesh-scans-As4Df5');
      const unnamedOld = await folder(parent, 'scan2mesh-scans-Gh6Jk7', day);
      const unrelated = await folder(parent, `other-${dead}-Lz8Xc9`, day);
      // A link named like a stale folder is not followed: what it points at stays.
      const target = await folder(root, `link-target-${n}`, day);
      symlinkSync(target, join(parent, `scan2mesh-scans-${dead}-Vb1Nm2`));

      const removed = await sweepStaleTempFolders(parent);

      expect(removed.sort()).toEqual([deadOwner, deadEngine, reused, earlierSelf, unnamedOld].sort());
      for (const p of removed) expect(existsSync(p)).toBe(false);
      for (const p of [liveOwner, unnamedYoung, unrelated, target])
        expect(existsSync(join(p, 'slice.dcm'))).toBe(true);
    } finally {
      live.kill('SIGKILL');
    }
  });

  it.skipIf(!POSIX || process.getuid?.() !== 0)("leaves another user's folders alone", async () => {
    const parent = freshParent();
    const theirs = await folder(parent, `scan2mesh-scans-${await deadPid()}-Ab1Cd2`);
    chownSync(theirs, 65534, 65534);
    expect(await sweepStaleTempFolders(parent)).toEqual([]);
    expect(existsSync(theirs)).toBe(true);
  });
});

describe('createOwnedTempFolder', () => {
  it('makes a private folder named for this process, that sweeps keep while it is in use', async () => {
    const parent = freshParent();
    const stale = await folder(parent, `scan2mesh-scans-${await deadPid()}-St4le0`);
    const f = await createOwnedTempFolder('scan2mesh-scans-', parent);
    // The first folder in a parent sweeps it.
    expect(existsSync(stale)).toBe(false);
    expect(f.path.startsWith(join(parent, `scan2mesh-scans-${process.pid}-`))).toBe(true);
    if (POSIX) expect(statSync(f.path).mode & 0o777).toBe(0o700);
    await writeFile(join(f.path, 'slice.dcm'), 'patient data');
    expect(await sweepStaleTempFolders(parent)).toEqual([]);
    await f.remove();
    expect(readdirSync(parent)).toEqual([]);
  });
});

/**
 * Real Node processes (through tsx, as the sources are TypeScript) that make a temporary folder, put a
 * file in it, say where, and wait to be signalled.
 */
describe.skipIf(!POSIX)('a process with temporary folders, signalled', () => {
  function start(parent: string, body = ''): { child: ChildProcess; folder: Promise<string> } {
    const script = join(root, `child-${++n}.mts`);
    const module = JSON.stringify(join(import.meta.dirname, 'temp-folders.ts'));
    const source = `import { writeFileSync } from 'node:fs';
import { createOwnedTempFolder } from ${module};
const f = await createOwnedTempFolder('scan2mesh-scans-', ${JSON.stringify(parent)});
writeFileSync(f.path + '/slice.dcm', 'patient data');
const alive = setInterval(() => {}, 1 << 30);
${body}
process.stdout.write(f.path + '\\n');
`;
    writeFileSync(script, source);
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const folder = new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.once('exit', (code, signal) => reject(new Error(`ended early: ${code ?? signal}`)));
    });
    return { child, folder };
  }

  const exited = (child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve({ code: child.exitCode, signal: child.signalCode })
      : new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`removes its folders on ${signal}, then dies of it as it would have`, async () => {
      const parent = freshParent();
      const { child, folder } = start(parent);
      const path = await folder;
      expect(existsSync(join(path, 'slice.dcm'))).toBe(true);
      child.kill(signal);
      expect(await exited(child)).toEqual({ code: null, signal });
      expect(readdirSync(parent)).toEqual([]);
    });
  }

  // Files still being created in the thread pool while the handler removes the folder: a file landing
  // after the removal listed its folder made that removal fail, and the unpacked scan outlived the
  // process (once in CI; about one kill in thirty of this loop with both cores busy).
  it('removes its folders while files are still being written into them', async () => {
    const writing = `const { writeFile } = await import('node:fs/promises');
const { mkdirSync } = await import('node:fs');
mkdirSync(f.path + '/a0');
const bytes = Buffer.alloc(65536, 1);
let i = 0;
for (let lane = 0; lane < 8; lane++)
  void (async () => { for (;;) await writeFile(f.path + '/a0/s' + i++ + '.dcm', bytes).catch(() => {}); })();`;
    for (let round = 0; round < 6; round++) {
      const parent = freshParent();
      const { child, folder } = start(parent, writing);
      const path = await folder;
      // Killed at a different point of the writing each round.
      while (readdirSync(join(path, 'a0')).length < 20 * (round + 1))
        await new Promise((r) => setTimeout(r, 5));
      child.kill('SIGTERM');
      expect(await exited(child)).toEqual({ code: null, signal: 'SIGTERM' });
      expect(readdirSync(parent)).toEqual([]);
    }
  });

  it('leaves a signal that the program handles itself to the program (which stops in order)', async () => {
    const parent = freshParent();
    const { child, folder } = start(
      parent,
      `process.once('SIGINT', () => {
  clearInterval(alive);
  process.stdout.write('stopping in order\\n');
  void f.remove();
});`,
    );
    await folder;
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.kill('SIGINT');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(out).toContain('stopping in order');
    expect(readdirSync(parent)).toEqual([]);
  });

  it('after a SIGKILL, the next process removes what the killed one left', async () => {
    const parent = freshParent();
    const first = start(parent);
    const left = await first.folder;
    first.child.kill('SIGKILL');
    expect((await exited(first.child)).signal).toBe('SIGKILL');
    expect(existsSync(join(left, 'slice.dcm'))).toBe(true);

    const next = start(parent);
    const own = await next.folder;
    expect(readdirSync(parent)).toEqual([own.slice(parent.length + 1)]);
    next.child.kill('SIGTERM');
    await exited(next.child);
    expect(readdirSync(parent)).toEqual([]);
  });
});

/**
 * `scan2mesh inspect` of a zip (five copies of a 108-slice series), interrupted while it unpacks: the
 * real command line, with the system's temporary folder pointed at a folder of the test's.
 */
describe.skipIf(!POSIX)('scan2mesh inspect, interrupted while it unpacks', () => {
  const CLI = join(import.meta.dirname, '..', 'cli', 'cli.ts');
  const SERIES = join(import.meta.dirname, '../../../shared/fixtures/dicom/ct-human-cranium-teeth');
  let zip: Promise<string> | undefined;

  async function fiveCopiesZip(): Promise<string> {
    const path = join(root, 'five-copies.zip');
    const z = new yazl.ZipFile();
    for (let copy = 1; copy <= 5; copy++)
      for (const name of readdirSync(SERIES)) z.addFile(join(SERIES, name), `copy${copy}/${name}`);
    z.end();
    const out = createWriteStream(path);
    z.outputStream.pipe(out);
    await once(out, 'close');
    return path;
  }

  /** Any file under `dir`, looked for until the process ends; undefined once it has ended. */
  async function firstFileUnder(dir: string, child: ChildProcess): Promise<string | undefined> {
    const find = (d: string): string | undefined => {
      let entries;
      try {
        entries = readdirSync(d, { withFileTypes: true });
      } catch {
        return undefined; // removed meanwhile: the command ended
      }
      for (const e of entries) {
        const p = join(d, e.name);
        if (e.isFile()) return p;
        const inner = e.isDirectory() ? find(p) : undefined;
        if (inner) return inner;
      }
      return undefined;
    };
    while (child.exitCode === null && child.signalCode === null) {
      const own = readdirSync(dir).filter((name) => name.startsWith('scan2mesh-scans-'));
      const found = own.map((name) => find(join(dir, name))).find(Boolean);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 10));
    }
    return undefined;
  }

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`removes the unpacked slices on ${signal}`, async () => {
      const parent = freshParent();
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', CLI, 'inspect', await (zip ??= fiveCopiesZip())],
        {
          env: { ...process.env, TMPDIR: parent },
          stdio: 'ignore',
        },
      );
      const ended = new Promise<NodeJS.Signals | null>((resolve) =>
        child.once('exit', (_c, s) => resolve(s)),
      );
      const unpacked = await firstFileUnder(parent, child);
      expect(unpacked, 'inspect ended before it unpacked anything').toBeDefined();
      child.kill(signal);
      expect(await ended).toBe(signal);
      // tsx keeps its cache in the temporary folder too: only scan2mesh's folders count here.
      expect(readdirSync(parent).filter((name) => name.startsWith('scan2mesh-'))).toEqual([]);
    });
  }
});
