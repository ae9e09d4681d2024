import { createWriteStream, mkdirSync, readdirSync, statSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalEngine, type RunningEngine } from './local-engine.js';
import { createSegmentationProcessor } from './segmentation/index.js';
import { fetchToFile } from './server/client-storage.js';

/**
 * Every file and folder the local engine writes holds or names a patient's scan: all are private to
 * the user (folders 0700, files 0600), the folder given to the engine included. A real job, through the
 * engine's HTTP interface, with real segmentation of a real series (uploaded as .zip.gz, so that the
 * engine also writes what it unpacks).
 */
const POSIX = process.platform !== 'win32';
const CRANIUM = resolve('../shared/fixtures/dicom/ct-human-cranium-teeth');

let dir: string;
let upload: Buffer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-private-'));
  const zipPath = join(dir, 'cranium.zip');
  const zip = new yazl.ZipFile();
  for (const name of (await readdir(CRANIUM)).sort()) zip.addFile(join(CRANIUM, name), `series/${name}`);
  zip.end();
  const out = createWriteStream(zipPath);
  zip.outputStream.pipe(out);
  await once(out, 'close');
  upload = gzipSync(await readFile(zipPath), { level: 1 });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every path under `root` with its permission bits, relative to `root`. */
function modesUnder(root: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      out.set(relative(root, p), statSync(p).mode & 0o777);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(root);
  return out;
}

async function runJob(engine: RunningEngine): Promise<string> {
  const tokenRes = await fetch(`${engine.authUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      audience: engine.audience,
      client_id: engine.clientId,
      client_secret: engine.clientSecret,
    }),
  });
  const auth = `Bearer ${((await tokenRes.json()) as { access_token: string }).access_token}`;
  const created = await fetch(`${engine.baseUrl}/job`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: auth },
    body: JSON.stringify({
      inputFiles: { cbct: { extension: '.zip.gz' } },
      outputFiles: { meshes: [{ extension: '.stl', structures: ['skull'] }] },
    }),
  });
  expect(created.status).toBe(200);
  const job = (await created.json()) as {
    jobId: string;
    presignedUploadUrl: { cbct: { presignedUploadUrl: string; notifyFinishUploadUrl: string } };
  };
  const { presignedUploadUrl, notifyFinishUploadUrl } = job.presignedUploadUrl.cbct;
  expect((await fetch(presignedUploadUrl, { method: 'PUT', body: upload })).status).toBe(200);
  expect(
    (await fetch(notifyFinishUploadUrl, { method: 'PUT', headers: { Authorization: auth } })).status,
  ).toBe(200);
  for (;;) {
    const res = await fetch(`${engine.baseUrl}/pollJobResults?jobId=${job.jobId}`, {
      headers: { Authorization: auth },
    });
    if (res.status === 200) {
      expect(await res.json()).toMatchObject({ success: true });
      return job.jobId;
    }
    expect(res.status).toBe(202);
    await res.text();
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!POSIX)('the local engine keeps what it writes private', () => {
  it('a folder it is given (even one that was open to others), the job, its upload, its unpacked scan and its mesh', async () => {
    const dataDir = join(dir, 'engine');
    mkdirSync(dataDir, { mode: 0o755 });
    await chmod(dataDir, 0o755);
    const engine = await startLocalEngine({
      processor: createSegmentationProcessor({ workers: 1 }),
      dataDir,
    });
    try {
      const id = await runJob(engine);
      // The poll answers "finished" as the engine writes job.json (atomically, through a .tmp file):
      // wait for that write to land before listing, as a busy machine can still be in it.
      while (readdirSync(join(dataDir, 'jobs', id)).some((n) => n.endsWith('.tmp')))
        await new Promise((r) => setImmediate(r));
      const modes = modesUnder(dataDir);
      const job = `jobs/${id}`;
      // What a finished job keeps, all of it checked below (the list proves the walk saw the files):
      // its mesh, not its copies of the scan (the upload, and the zip unpacked from it).
      expect([...modes.keys()].sort()).toEqual(
        ['jobs', job, `${job}/job.json`, `${job}/work`, `${job}/work/mesh-1-skull.stl`].sort(),
      );
      const open = [...modes].filter(
        ([p, m]) => m !== (statSync(join(dataDir, p)).isDirectory() ? 0o700 : 0o600),
      );
      expect(open.map(([p, m]) => `${p} ${m.toString(8)}`)).toEqual([]);
      expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    } finally {
      await engine.close();
    }
  });

  it('an input it fetches from a client-hosted address', async () => {
    const server = createServer((_req, res) => res.end('scan bytes'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const dest = join(dir, 'fetched.dcm');
      await fetchToFile(`http://127.0.0.1:${(server.address() as AddressInfo).port}/input`, dest);
      expect((await stat(dest)).mode & 0o777).toBe(0o600);
    } finally {
      server.close();
    }
  });

  it('a temporary folder of its own, named for this process and gone when it closes', async () => {
    const mine = (): string[] =>
      readdirSync(tmpdir()).filter((n) => n.startsWith(`scan2mesh-engine-${process.pid}-`));
    const before = mine();
    const engine = await startLocalEngine({ processor: createSegmentationProcessor({ workers: 1 }) });
    const made = mine().filter((n) => !before.includes(n));
    expect(made).toHaveLength(1);
    expect(statSync(join(tmpdir(), made[0]!)).mode & 0o777).toBe(0o700);
    await writeFile(join(tmpdir(), made[0]!, 'probe'), '');
    await engine.close();
    expect(mine().filter((n) => !before.includes(n))).toEqual([]);
  });
});
