import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPEC } from './test-engine.test-support.js';
import { client, redirect, storage, transferTests } from './transfers.test-support.js';

/**
 * Pre-signed addresses, against storage stand-ins on loopback: requested as the service wrote them
 * (a signature covers the address as spelt), on transfers and on a job's upload and notify addresses.
 */
const { dir, spider } = transferTests();

// The URL parser writes a ' in a query as %27; a signature covers the address as the service spelt
// it, and storage that compares it byte for byte refused the rewritten one.
describe('a pre-signed address', () => {
  it('is sent as the service wrote it, on an upload and on a download', async () => {
    const s = await storage((req, res) => {
      if (req.path === '/hop') redirect(res, 307, "/r2?sig=it's");
      else if (req.path === '/hop-whole') redirect(res, 302, `${s.origin}/r3?sig=it's`);
      else if (req.method === 'GET') res.writeHead(200, { 'Content-Length': spider().length }).end(spider());
      else res.writeHead(200).end();
    });
    const file = join(dir(), 'verbatim.zip');
    await writeFile(file, Buffer.from('scan'));
    const target = "/b/k%2fx.zip?X-Cred=a%2Fb&note=it's&s=~!*()$,;:@&e=";
    const { c } = client();
    try {
      await c.upload(`${s.origin}${target}`, file);
      await c.download(`${s.origin}${target}`, join(dir(), 'verbatim', 'm.stl'));
      expect(s.seen.map((r) => [r.method, r.path])).toEqual([
        ['PUT', target],
        ['GET', target],
      ]);
      // Where storage redirects to, as it wrote it, relative to its origin or whole.
      await c.download(`${s.origin}/hop`, join(dir(), 'verbatim', 'r.stl'));
      await c.download(`${s.origin}/hop-whole`, join(dir(), 'verbatim', 'w.stl'));
      expect(s.seen.slice(-4).map((r) => r.path)).toEqual([
        '/hop',
        "/r2?sig=it's",
        '/hop-whole',
        "/r3?sig=it's",
      ]);
      // One a request line cannot carry as it stands is sent as the URL parser writes it.
      await c.download(`${s.origin}/a b/./c?x=1 2`, join(dir(), 'verbatim', 'n.stl'));
      expect(s.seen.at(-1)?.path).toBe('/a%20b/c?x=1%202');
    } finally {
      c.close();
    }
  });
});

describe("a job's upload and notify addresses", () => {
  it('are kept and requested as the service wrote them', async () => {
    const upload = "/bucket/in/cbct.zip?X-Amz-Signature=abc&name=O'Brien";
    const notify = "/24.06/notify?jobId=j1&tag='x'";
    const s = await storage((req, res) => {
      if (req.method === 'POST' && req.path === '/auth/oauth/token')
        return void res
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ access_token: 't', token_type: 'Bearer', expires_in: 3600 }));
      if (req.method === 'POST' && req.path.startsWith('/24.06/job'))
        return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(
          JSON.stringify({
            jobId: 'j1',
            presignedUploadUrl: {
              cbct: {
                presignedUploadUrl: `${s.origin}${upload}`,
                notifyFinishUploadUrl: `${s.origin}${notify}`,
              },
            },
          }),
        );
      res.writeHead(200).end();
    });
    const { c } = client(`${s.origin}/24.06`, `${s.origin}/auth`);
    const file = join(dir(), 'addresses.zip');
    await writeFile(file, 'scan');
    try {
      const job = await c.createJob(SPEC);
      expect(job.uploads).toEqual([
        { input: 'cbct', uploadUrl: `${s.origin}${upload}`, notifyUrl: `${s.origin}${notify}` },
      ]);
      await c.upload(job.uploads[0]!.uploadUrl, file);
      await c.notify(job.uploads[0]!.notifyUrl);
      expect(s.seen.filter((r) => r.method === 'PUT').map((r) => r.path)).toEqual([upload, notify]);
    } finally {
      c.close();
    }
  });
});
