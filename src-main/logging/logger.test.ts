import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { logFilesOf, readLogs } from './log-files.test-support.js';

const root = mkdtempSync(join(tmpdir(), 's2m-logger-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshBase = (): string => join(root, `run-${++n}`, 'scan2mesh.log');
const POSIX = process.platform !== 'win32';

const SIGNED = 'https://bucket.example/out/mesh.stl?X-Amz-Signature=abc123&X-Amz-Expires=600';

describe('the file logger', () => {
  it('redacts Authorization headers and pre-signed query strings in what it writes', async () => {
    const base = freshBase();
    const log = createLogger({ file: base, level: 'debug' });
    log
      .child('service')
      .child('transfers')
      .info('download', {
        headers: { Authorization: 'Bearer eyJhbGciOi.secret-part' },
        url: SIGNED,
      });
    log.debug(`GET ${SIGNED} with Authorization: Bearer tok.en`);
    await log.close();
    const text = readLogs(base);
    expect(text).not.toMatch(/eyJhbGciOi|secret-part|tok\.en|abc123|X-Amz-Signature/);
    expect(text).toContain('https://bucket.example/out/mesh.stl?[redacted]');
    const first = JSON.parse(text.split('\n')[0] as string) as Record<string, unknown>;
    expect(first).toMatchObject({ level: 'info', scope: 'app.service.transfers', msg: 'download' });
    // One "scope" key per line: JSON parsers keep only the last of repeated keys.
    expect(text.split('\n')[0]!.match(/"scope"/g)).toHaveLength(1);
    expect(first.headers).toEqual({ Authorization: 'Bearer [redacted]' });
  });

  it('writes in the background: lines logged in one go reach the file only once the event loop runs', async () => {
    const base = freshBase();
    const log = createLogger({ file: base });
    log.info('opening');
    await log.flush();
    for (let i = 0; i < 2000; i++) log.info(`line ${i}`);
    // sonic-boom sends one write at a time and learns it finished only from the event loop: at most the
    // first of these lines can be in the file now.
    expect(
      readLogs(base)
        .split('\n')
        .filter((l) => l.includes('"line ')).length,
    ).toBeLessThanOrEqual(1);
    await log.flush();
    expect(
      readLogs(base)
        .split('\n')
        .filter((l) => l.includes('"line ')).length,
    ).toBe(2000);
    await log.close();
  });

  it('rolls over past the size limit and keeps at most the newest files', async () => {
    const base = freshBase();
    const log = createLogger({ file: base, maxFileBytes: 4096, keepFiles: 3 });
    const pad = 'x'.repeat(400);
    for (let i = 0; i < 120; i++) {
      log.info(`entry ${i}`, { pad });
      await log.flush();
    }
    await log.close();
    // Old files are removed in the background after each roll: wait for that, the test's timeout bounds it.
    while (logFilesOf(base).length > 3) await new Promise((r) => setTimeout(r, 20));
    const files = logFilesOf(base);
    // pino-roll prunes while the new file is being opened: the newest two or three are left.
    expect(files.length).toBeGreaterThanOrEqual(2);
    const numbers = files.map((f) => Number(/\.(\d+)\.log$/.exec(f)?.[1]));
    const last = numbers[numbers.length - 1]!;
    expect(last).toBeGreaterThan(10);
    expect(numbers).toEqual(numbers.map((_, i) => last - (numbers.length - 1 - i)));
    for (const f of files) {
      // A roll happens after the write that crossed the limit: one line more at most.
      expect(statSync(f).size).toBeLessThan(4096 + 600);
      if (POSIX) expect(statSync(f).mode & 0o777).toBe(0o600);
    }
    expect(readFileSync(files[files.length - 1]!, 'utf8')).toContain('entry 119');
  });

  it('neither throws nor hangs when its folder is removed under it', async () => {
    const base = freshBase();
    const log = createLogger({ file: base });
    rmSync(join(base, '..'), { recursive: true, force: true });
    log.error('nowhere to go');
    await log.flush();
    await log.close();
    expect(logFilesOf(base)).toEqual([]);
  });

  it('keeps the folder private and makes an older, readable log private too', async () => {
    const base = freshBase();
    mkdirSync(join(base, '..'), { mode: 0o755 });
    writeFileSync(base, 'written by an older version\n', { mode: 0o644 });
    const log = createLogger({ file: base });
    log.warn('a line');
    await log.close();
    const [file] = logFilesOf(base);
    if (POSIX) {
      expect(statSync(join(base, '..')).mode & 0o777).toBe(0o700);
      expect(statSync(file!).mode & 0o777).toBe(0o600);
      expect(statSync(base).mode & 0o777).toBe(0o600);
    }
  });
});

describe('a process that logs and exits normally', () => {
  // A real Node process (through tsx, as the sources are TypeScript), ending with process.exit().
  function run(body: string): { stderr: string; status: number | null } {
    const script = join(root, `child-${++n}.mts`);
    writeFileSync(
      script,
      `import { createLogger } from ${JSON.stringify(join(import.meta.dirname, 'logger.ts'))};\n${body}\n`,
    );
    const r = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8' });
    return { stderr: r.stderr, status: r.status };
  }

  it('loses no line, whether its file was open yet or not', () => {
    const late = freshBase();
    const early = freshBase();
    const r = run(`
      const early = createLogger({ file: ${JSON.stringify(early)} });
      for (let i = 0; i < 500; i++) early.info('early ' + i);
      const late = createLogger({ file: ${JSON.stringify(late)} });
      late.info('first');
      await late.flush();
      for (let i = 0; i < 5000; i++) late.info('late ' + i);
      process.exit(0);
    `);
    expect(r.status).toBe(0);
    expect(readLogs(early).match(/"early \d+"/g)).toHaveLength(500);
    expect(readLogs(late).match(/"late \d+"/g)).toHaveLength(5000);
  });

  it('writes to stderr when asked (the CLI’s --verbose), redacted too', () => {
    const r = run(`
      const log = createLogger({ stderr: true, level: 'debug' }, 'cli');
      log.debug('calling', { Authorization: 'Bearer abc.def', url: ${JSON.stringify(SIGNED)} });
      process.exit(0);
    `);
    expect(r.status).toBe(0);
    const line = JSON.parse(r.stderr.trim()) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 'debug',
      scope: 'cli',
      msg: 'calling',
      Authorization: 'Bearer [redacted]',
    });
    expect(r.stderr).not.toMatch(/abc\.def|abc123/);
  });
});
