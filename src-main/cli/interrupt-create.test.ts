// Ctrl+C while a job's creation is on its way: the service may have the job. A review saw the command
// say "`scan2mesh resume` finishes it" and exit 1; `resume` then stopped at once with exit 5. The
// command now waits a few seconds for the answer and says what it then knows: exit 5 and how to find
// out when none came, "resume finishes it" when the job's id came. The real command line, against a
// service on loopback that takes the job request and answers it late or never.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, 'cli.ts');
const SERIES = join(import.meta.dirname, '../../../shared/fixtures/dicom/ct-human-cranium-teeth');
const POSIX = process.platform !== 'win32';
const WAITING = "Ctrl+C: a job request is on its way; waiting up to 5 s for the service's answer.";
const dir = mkdtempSync(join(tmpdir(), 's2m-interrupt-create-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs `submit` against a service that holds the job request; Ctrl+C comes once it is received, and
 * `answerLate`, when given, is then sent to it. Gives the exit code and everything printed.
 */
async function interruptedSubmit(
  name: string,
  answerLate?: object,
): Promise<{ code: number | null; out: string }> {
  let received!: (res: ServerResponse) => void;
  const creating = new Promise<ServerResponse>((r) => (received = r));
  const held: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      if (req.method === 'POST' && req.url === '/oauth/token')
        res.end(JSON.stringify({ access_token: 't0k3n', token_type: 'Bearer', expires_in: 86400 }));
      else if (req.method === 'GET' && req.url === '/24.06/testAuth')
        res.end(JSON.stringify(['Authentication succeeded.']));
      else if (req.method === 'POST' && req.url === '/24.06/job') {
        held.push(res);
        received(res);
      } else {
        // Uploads and the rest: refused, the command is stopping anyway.
        res.statusCode = 503;
        res.end('{}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const args = ['submit', SERIES, '--mesh', 'skull', '--out', join(dir, name, 'out')];
    args.push('--base-url', `${base}/24.06`, '--auth-url', base, '--audience', 'a', '--client-id', 'c');
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, SCAN2MESH_DATA_DIR: join(dir, name, 'data'), SCAN2MESH_CLIENT_SECRET: 's' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
    const res = await Promise.race([creating, exited.then(() => null)]);
    child.kill('SIGINT');
    // Said at once, before any answer (a review saw nothing for 5 s): the answer is sent only then.
    const told = await new Promise<boolean>((r) => {
      const look = (): void => {
        if (out.includes(WAITING)) r(true);
      };
      child.stdout.on('data', look);
      child.stderr.on('data', look);
      look();
      void exited.then(() => r(out.includes(WAITING)));
    });
    if (res && answerLate && told) res.end(JSON.stringify(answerLate));
    return { code: await exited, out };
  } finally {
    for (const r of held) r.destroy();
    server.close();
  }
}

describe.skipIf(!POSIX)('scan2mesh submit, interrupted while the job is being created', () => {
  it('exits 5 and says the service may have the job when no answer comes', async () => {
    const { code, out } = await interruptedSubmit('never');
    expect(code, out).toBe(5);
    expect(out).toContain(WAITING);
    expect(out).toContain('Interrupted while a job was being created: the service may have it.');
    expect(out).toContain('Stopped while the job was being created: the service may have it.');
    expect(out).toMatch(/scan2mesh retry [0-9a-f-]{36} --resubmit/);
    expect(out).not.toContain('resume` finishes');
  });

  it('says resume finishes the job when its id came a moment after Ctrl+C', async () => {
    const remote = '11111111-2222-3333-4444-555555555555';
    const { code, out } = await interruptedSubmit('late', {
      jobId: remote,
      presignedUploadUrl: {
        cbct: { presignedUploadUrl: 'http://127.0.0.1:9/up', notifyFinishUploadUrl: 'http://127.0.0.1:9/n' },
      },
    });
    expect(code, out).toBe(1);
    expect(out).toContain(WAITING);
    expect(out).toContain('`scan2mesh resume` finishes');
    expect(out).not.toContain('may have it');
  });
});
