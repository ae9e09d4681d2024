// What the command line tells a new user, in words, where a review saw raw errors, silent surprises or
// help text the default connection refutes. The real command line from source, as a user runs it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PHANTOM_DIR } from '../scans/scans.test-support.js';
import { givenNotDropped } from './cli-wording.js';
import { deidentifyChoice } from './option-parsers.js';
import { engineSecret } from './commands/engine.js';

const CLI = join(import.meta.dirname, 'cli.ts');
// tsx by its path: a command run from another folder (the empty --out case) would not find it by name.
const TSX = pathToFileURL(join(import.meta.dirname, '../../node_modules/tsx/dist/loader.mjs')).href;
const work = mkdtempSync(join(tmpdir(), 's2m-cli-truth-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A home folder of its own (`~` is it), a file in it, and the phantom linked in as ~/phantom. */
const home = join(work, 'home');
mkdirSync(home);
writeFileSync(join(home, 'afile'), 'not a folder');
symlinkSync(PHANTOM_DIR, join(home, 'phantom'));

interface Env {
  [name: string]: string | undefined;
}

function cli(
  args: string[],
  env: Env = {},
  cwd = work,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', TSX, CLI, ...args], {
    cwd,
    encoding: 'utf8',
    // A command that hangs (Node's recursive mkdir on /proc) ends the test rather than the suite.
    timeout: 60_000,
    env: {
      ...process.env,
      HOME: home,
      SCAN2MESH_DATA_DIR: join(work, 'data'),
      SCAN2MESH_LOG_LEVEL: 'error',
      ...env,
    },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('a data folder that cannot be used is refused in words, exit 2', () => {
  const env = { SCAN2MESH_DATA_DIR: join(home, 'afile') };

  it.each([['status'], ['submit', PHANTOM_DIR, '--mesh', 'skull', '--out', join(work, 'o1')]])(
    '%s',
    (...args) => {
      const r = cli(args, env);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(`the data folder ${join(home, 'afile')} (SCAN2MESH_DATA_DIR) is a file`);
      expect(r.stderr).toContain('Set SCAN2MESH_DATA_DIR to a folder you can write in');
      expect(r.stderr).not.toContain('unexpected error');
    },
  );

  it('web mode started without the command line (npm start without Electron) refuses it too', async () => {
    const before = process.env.SCAN2MESH_DATA_DIR;
    process.env.SCAN2MESH_DATA_DIR = join(home, 'afile');
    try {
      const { runWebMode } = await import('../transport/web-mode.js');
      await expect(runWebMode({})).rejects.toThrow('(SCAN2MESH_DATA_DIR) is a file, not a folder');
    } finally {
      process.env.SCAN2MESH_DATA_DIR = before;
    }
  });

  it('web mode says so instead of saying it is running', () => {
    const r = cli(['web'], env);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stdout).not.toContain('running');
    expect(r.stderr).toContain('(SCAN2MESH_DATA_DIR) is a file');
  });
});

describe('paths as the user typed them', () => {
  it('reads a leading ~/ in a scan path as the home folder', () => {
    const r = cli(['inspect', '~/phantom']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('usable');
  });

  it('names a scan path that is not there as typed, saying it does not exist', () => {
    for (const command of [['inspect'], ['submit', '--mesh', 'skull', '--out', join(work, 'o2')]]) {
      const r = cli([...command, '~/cranium']);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain('~/cranium does not exist');
      expect(r.stderr).not.toContain('no CT series');
    }
  });

  it('reads --out=~/… from the home folder, and says a file is not a folder', () => {
    const r = cli(['submit', PHANTOM_DIR, '--mesh', 'skull', '--out=~/afile']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('--out ~/afile is a file, not a folder');
    expect(r.stderr).not.toContain('EEXIST');
    expect(existsSync(join(work, '~'))).toBe(false);
  });

  it('refuses an empty --out rather than saving into the current folder', () => {
    const cwd = join(work, 'empty-out');
    mkdirSync(cwd);
    const r = cli(['submit', PHANTOM_DIR, '--mesh', 'skull', '--out', ''], {}, cwd);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('--out is empty');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it.skipIf(process.platform !== 'linux')('refuses --out under /proc in words, without hanging', () => {
    const r = cli(['submit', PHANTOM_DIR, '--mesh', 'skull', '--out', '/proc/scan2mesh-x']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain('--out /proc/scan2mesh-x cannot be made in /proc');
  });
});

describe('help and examples the default connection bears out', () => {
  it('submit --help says what the local engine makes, and shows no default for --mesh', () => {
    const r = cli(['submit', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain('(default: [])');
    expect(r.stdout).toMatch(/local engine \(the default connection\) makes: .*skull.*all_teeth/);
    expect(r.stdout).toContain('may make more');
  });

  it('a structure name refused for its spelling is shown with names the local engine makes', () => {
    const r = cli(['submit', PHANTOM_DIR, '--mesh', 'Skull', '--out', join(work, 'o3')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('e.g. skull, all_teeth');
    expect(r.stderr).not.toContain('mandible');
  });
});

/** A port another program listens on, held until the returned function is called. */
async function takenPort(): Promise<{ port: number; free: () => void }> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, free: () => server.close() };
}

describe('a port in use is said in words, exit 2', () => {
  it.each([['web'], ['engine']])('%s --port', async (command) => {
    const { port, free } = await takenPort();
    try {
      const r = cli([command, '--port', String(port)]);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(`port ${port} is in use: choose another, or leave out --port`);
      expect(r.stderr).not.toContain('EADDRINUSE');
    } finally {
      free();
    }
  });
});

describe('--accept-burned-in', () => {
  it('sends de-identified, and cannot go with --no-deidentify', () => {
    expect(deidentifyChoice({ acceptBurnedIn: true })).toEqual({ deidentify: true });
    expect(deidentifyChoice({})).toEqual({});
    expect(deidentifyChoice({ deidentify: false })).toEqual({ deidentify: false });
    const r = cli([
      'submit',
      PHANTOM_DIR,
      '--mesh',
      'skull',
      '--out',
      join(work, 'o4'),
      '--accept-burned-in',
      '--no-deidentify',
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--accept-burned-in sends scans de-identified');
  });
});

describe('web mode', () => {
  it('says on the terminal, as it starts, that a staging limit is no number', async () => {
    const child = spawn(process.execPath, ['--import', TSX, CLI, 'web'], {
      env: {
        ...process.env,
        HOME: home,
        SCAN2MESH_DATA_DIR: join(work, 'web-data'),
        SCAN2MESH_STAGE_MAX_FILE_MB: '4G',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
    await new Promise<void>((running) => {
      let out = '';
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        if (out.includes('Press Ctrl+C to stop')) running();
      });
      void exited.then(() => running());
    });
    child.kill('SIGINT');
    await exited;
    expect(err).toContain('SCAN2MESH_STAGE_MAX_FILE_MB="4G" is not a positive number of MiB');
  });
});

describe('words of the command line', () => {
  it('calls typed paths what you gave, not what you dropped', () => {
    expect(givenNotDropped('No DICOM images were found in what you dropped.')).toBe(
      'No DICOM images were found in what you gave.',
    );
    const empty = join(work, 'empty-folder');
    mkdirSync(empty);
    const r = cli(['inspect', empty]);
    expect(r.status).toBe(2);
    expect(r.stdout).not.toContain('dropped');
  });
});

describe('scan2mesh engine', () => {
  it('keeps the secret file a first engine printed its recipe with, and replaces one it did not make', async () => {
    const data = join(work, 'engine-data');
    const first = await engineSecret({}, data);
    const second = await engineSecret({}, data);
    expect(second.secret).toBe(first.secret);
    writeFileSync(join(data, 'engine-client-secret'), 'short\n');
    const third = await engineSecret({}, data);
    expect(third.secret).not.toBe('short');
    expect(third.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
