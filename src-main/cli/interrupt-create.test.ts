// Ctrl+C while a job's creation is on its way: the service may have the job. A review saw the command
// say "`scan2mesh resume` finishes it" and exit 1; `resume` then stopped at once with exit 5. The
// command now says so at the Ctrl+C itself: exit 5, and how to find out. The real command line, against
// a service on loopback that takes the job request and never answers it.
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
const dir = mkdtempSync(join(tmpdir(), 's2m-interrupt-create-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!POSIX)('scan2mesh submit, interrupted while the job is being created', () => {
  it('exits 5 and says the service may have the job, not that resume finishes it', async () => {
    let created!: () => void;
    const creating = new Promise<void>((r) => (created = r));
    const held: ServerResponse[] = [];
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on('end', () => {
        if (req.method === 'POST' && req.url === '/oauth/token') {
          res.setHeader('Content-Type', 'application/json');
          res.end(JSON.stringify({ access_token: 't0k3n', token_type: 'Bearer', expires_in: 86400 }));
        } else if (req.method === 'GET' && req.url === '/24.06/testAuth') {
          res.setHeader('Content-Type', 'application/json');
          res.end(JSON.stringify(['Authentication succeeded.']));
        } else if (req.method === 'POST' && req.url === '/24.06/job') {
          // Received whole, never answered.
          held.push(res);
          created();
        } else {
          res.statusCode = 404;
          res.end();
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          CLI,
          'submit',
          SERIES,
          '--mesh',
          'skull',
          '--out',
          join(dir, 'out'),
          '--base-url',
          `${base}/24.06`,
          '--auth-url',
          base,
          '--audience',
          'a',
          '--client-id',
          'c',
        ],
        {
          env: { ...process.env, SCAN2MESH_DATA_DIR: join(dir, 'data'), SCAN2MESH_CLIENT_SECRET: 's' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      child.stderr.on('data', (b: Buffer) => (out += b.toString()));
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      await Promise.race([creating, exited]);
      child.kill('SIGINT');
      expect(await exited, out).toBe(5);
      expect(out).toContain('Interrupted while a job was being created: the service may have it.');
      expect(out).toContain('Stopped while the job was being created: the service may have it.');
      expect(out).toContain('scan2mesh retry <id> --resubmit');
      expect(out).not.toContain('resume` finishes');
    } finally {
      for (const r of held) r.destroy();
      server.close();
    }
  });
});
