import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_CATALOG } from './commands/catalog.js';
import { PHANTOM_DIR } from '../scans/scans.test-support.js';

// The built command line is split (src-main/build-main.mjs): cli.cjs dispatches and requires the bundle
// of the command named. Built here into a folder of its own (inside the project, so that the bundles
// find node_modules), then run as a user runs dist/main/cli.cjs.
const project = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
let out = '';
let probe = '';

beforeAll(() => {
  out = mkdtempSync(join(project, 'dist', 'cli-bundles-test-'));
  execFileSync(process.execPath, [join(project, 'src-main', 'build-main.mjs'), out], { cwd: project });
  // Preloaded into each run: prints, at exit, which of the built files the process loaded.
  probe = join(out, 'loaded-probe.cjs');
  writeFileSync(
    probe,
    `const dir = ${JSON.stringify(out)};
process.on('exit', () => {
  const loaded = Object.keys(require.cache).filter((f) => f.startsWith(dir + '/') && f !== __filename);
  process.stderr.write('LOADED ' + JSON.stringify(loaded.map((f) => f.slice(dir.length + 1)).sort()) + '\\n');
});`,
  );
}, 120_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

function run(...args: string[]): { status: number | null; stdout: string; stderr: string; loaded: string[] } {
  const r = spawnSync(process.execPath, ['--require', probe, join(out, 'cli.cjs'), ...args], {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, SCAN2MESH_LOG_LEVEL: 'error', SCAN2MESH_DATA_DIR: join(out, 'data') },
  });
  const line = r.stderr.split('\n').find((l) => l.startsWith('LOADED '));
  return {
    status: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    loaded: line ? (JSON.parse(line.slice('LOADED '.length)) as string[]) : [],
  };
}

describe('the built command line', () => {
  it('has one bundle per command of the catalog', () => {
    const files = readdirSync(out);
    for (const c of COMMAND_CATALOG) expect(files).toContain(`cli-${c.name}.cjs`);
  });

  it('prints its help without loading any command', () => {
    const r = run('--help');
    expect(r.status).toBe(0);
    for (const c of COMMAND_CATALOG) expect(r.stdout).toContain(c.name);
    expect(
      r.loaded.filter((f) => basename(f).startsWith('cli-') && !/cli-(errors|exit-codes)/.test(f)),
    ).toEqual([]);
  });

  it('runs inspect from its own bundle, no other command loaded', () => {
    const r = run('inspect', '--json', PHANTOM_DIR);
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as { series: { slices: number }[] }).series[0]?.slices).toBe(140);
    expect(r.loaded).toContain('cli-inspect.cjs');
    expect(r.loaded.filter((f) => /^cli-(?!inspect|errors|exit-codes)/.test(f) && f !== 'cli.cjs')).toEqual(
      [],
    );
  });

  it('tells a command’s errors apart as one bundle: an AppError and a CliExit keep their exit codes', () => {
    // AppError 'not-found' thrown in cli-retry.cjs, mapped by cli.cjs: exit 2 with its action.
    const missing = run('retry', 'no-such-job');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/There is no job "no-such-job"/);
    expect(missing.stderr).toMatch(/scan2mesh status/);
    // CliExit thrown while cli-web.cjs parses its options: its own code and message.
    const badPort = run('web', '--port', '99999');
    expect(badPort.status).toBe(2);
    expect(badPort.stderr).toMatch(/--port must be 0\.\.65535/);
  });
});
