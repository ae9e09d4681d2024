import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { BodyReader, readStageManifest } from './stage-body.js';
import {
  grantsOf,
  pageHeaders,
  raw,
  stage,
  stageBody,
  webServerPerTest,
} from './web-request.test-support.js';
import { STAGE_BATCH_MAX_FILES, STAGE_MANIFEST_MAX_BYTES } from '../../src-shared/stage-batch.js';

// Web mode stages the files of a drop several to a request (src-shared/stage-batch.ts): a browser's
// cost per request made a drop of thousands of slices take minutes. A batch is kept whole or not at all.

const KiB = 1024;

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

describe('web mode stages a drop in batches', () => {
  const servers = webServerPerTest();
  const start = servers.start;

  it('keeps every file of a batch byte for byte, with one grant per dropped item', async () => {
    const s = await start();
    const slice = (n: number): Buffer => Buffer.alloc(3 * KiB + n, n);
    const files = [
      { path: 'CT/I1', body: slice(1) },
      { path: 'CT/sub/I2', body: slice(2) },
      { path: 'CT/empty', body: Buffer.alloc(0) },
      { path: 'report.dcm', body: slice(3) },
      { path: 'CT/I3', body: slice(4) },
    ];
    for (const chunked of [false, true]) {
      const drop = randomUUID();
      const r = await stage(s, drop, files, chunked);
      expect(r.status).toBe(200);
      const grants = grantsOf(r);
      expect(grants.map((g) => g.name)).toEqual(['CT', 'CT', 'CT', 'report.dcm', 'CT']);
      expect(new Set(grants.map((g) => g.id)).size).toBe(2);
      for (const f of files) expect(readFileSync(join(servers.stagingDir(), drop, f.path))).toEqual(f.body);
    }
  });

  it('keeps nothing of a batch whose body is shorter or longer than its list says, and gives its room back', async () => {
    const s = await start({ maxFileBytes: 64 * KiB, maxDropBytes: 100 * KiB, minFreeBytes: 0 });
    const drop = randomUUID();
    const part = Buffer.alloc(40 * KiB, 5);
    // Sent without a length, so that only the body itself can tell.
    const cases = [
      {
        folder: 'A',
        size: 50 * KiB,
        words: /ended before its files did: nothing of this part of the drop was kept/,
      },
      {
        folder: 'B',
        size: 30 * KiB,
        words: /more bytes than its files: nothing of this part of the drop was kept/,
      },
    ];
    for (const { folder, size, words } of cases) {
      const files = [
        { path: `${folder}/I1`, body: part },
        { path: `${folder}/I2`, body: part, size },
      ];
      const r = await stage(s, drop, files, true);
      expect(r.status).toBe(400);
      expect(r.body).toMatch(words);
    }
    // A length that is not the manifest's and the files' is refused before anything is written.
    const exact = await raw(s.port, `/api/stage?drop=${drop}`, {
      method: 'POST',
      headers: { ...pageHeaders(s), 'Content-Type': 'application/octet-stream' },
      body: Buffer.concat([stageBody([{ path: 'C/I1', body: part, size: 41 * KiB }]), Buffer.alloc(KiB)]),
    });
    expect(exact.status).toBe(200);
    expect(filesUnder(join(servers.stagingDir(), drop))).toEqual(['C/I1']);
    const wrongLength = await raw(s.port, `/api/stage?drop=${drop}`, {
      method: 'POST',
      headers: { ...pageHeaders(s), 'Content-Type': 'application/octet-stream', 'Content-Length': '100' },
      body: stageBody([{ path: 'D/I1', body: 'x'.repeat(100) }]).subarray(0, 100),
    });
    expect(wrongLength.status).toBe(400);
    expect(wrongLength.body).toMatch(/length is not that of its list and files together/);
    expect(filesUnder(join(servers.stagingDir(), drop))).toEqual(['C/I1']);
    // The refused batches gave their bytes back: 41 + 40 + 8 KiB and two folders (4 KiB each) fit the 100 KiB drop.
    const next = await stage(s, drop, [
      { path: 'E/I1', body: part },
      { path: 'E/I2', body: Buffer.alloc(8 * KiB) },
    ]);
    expect(next.status).toBe(200);
    expect(filesUnder(join(servers.stagingDir(), drop))).toEqual(['C/I1', 'E/I1', 'E/I2']);
  });

  it('refuses a batch over a limit as a whole, before a byte is written', async () => {
    const s = await start({ maxFileBytes: 64 * KiB, maxDropBytes: 100 * KiB, minFreeBytes: 0 });
    const drop = randomUUID();
    const part = Buffer.alloc(40 * KiB, 6);
    const tooBig = await stage(s, drop, [
      { path: 'A/I1', body: part },
      { path: 'A/I2', body: Buffer.alloc(65 * KiB) },
    ]);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toMatch(/at most 64 KiB per file/);
    const tooMuch = await stage(
      s,
      drop,
      [1, 2, 3].map((n) => ({ path: `B/I${n}`, body: part })),
    );
    expect(tooMuch.status).toBe(413);
    expect(tooMuch.body).toMatch(/at most 100 KiB per drop/);
    expect(filesUnder(join(servers.stagingDir(), drop))).toEqual([]);
  });

  it('refuses a second file for a path the drop holds, and keeps the first whole', async () => {
    const s = await start();
    const drop = randomUUID();
    const first = Buffer.alloc(4 * KiB, 1);
    expect((await stage(s, drop, [{ path: 'CT/I1', body: first }])).status).toBe(200);
    const again = await stage(s, drop, [
      { path: 'CT/I2', body: 'b' },
      { path: 'CT/./I1', body: Buffer.alloc(4 * KiB, 2) },
    ]);
    const twice = await stage(s, drop, [
      { path: 'MR/I1', body: 'c' },
      { path: 'MR/I1', body: 'd' },
    ]);
    for (const r of [again, twice]) {
      expect(r.status).toBe(400);
      expect(r.body).toMatch(
        /Two files of the drop have the same path: nothing of this part of the drop was kept/,
      );
    }
    expect(filesUnder(join(servers.stagingDir(), drop))).toEqual(['CT/I1']);
    expect(readFileSync(join(servers.stagingDir(), drop, 'CT', 'I1'))).toEqual(first);
    // A refused batch holds nothing: its paths can come again.
    expect((await stage(s, drop, [{ path: 'MR/I1', body: 'c' }])).status).toBe(200);
  });

  it('never writes into a file that is there, and refuses names the disk will not take, keeping nothing of them', async () => {
    const s = await start();
    const drop = randomUUID();
    const dir = join(servers.stagingDir(), drop);
    expect((await stage(s, drop, [{ path: 'X', body: 'a file' }])).status).toBe(200);
    // Another writer's file at a path the stage has not given out (as a name the disk takes for
    // another would be): created anew or not at all.
    mkdirSync(join(dir, 'CT'), { recursive: true });
    writeFileSync(join(dir, 'CT', 'I1'), 'theirs');
    const cases: [string, RegExp][] = [
      ['CT/I1', /name one file on this disk/],
      ['X/I1', /A file and a folder of the drop have the same name/],
      [`MR/${'n'.repeat(300)}`, /longer than this disk allows/],
    ];
    for (const [path, words] of cases) {
      const r = await stage(s, drop, [
        { path: 'NEW/deep/I0', body: 'x' },
        { path, body: 'mine' },
      ]);
      expect(r.status, path).toBe(400);
      expect(r.body).toMatch(words);
      expect(r.body).toMatch(/nothing of this part of the drop was kept/);
    }
    // Nothing of the refused batches stays, their folders included; the other writer's file is whole.
    expect(filesUnder(dir)).toEqual(['CT/I1', 'X']);
    expect(existsSync(join(dir, 'NEW'))).toBe(false);
    expect(existsSync(join(dir, 'MR'))).toBe(false);
    expect(readFileSync(join(dir, 'CT', 'I1'), 'utf8')).toBe('theirs');
  });

  it('counts a block of the disk for each file, however short, and for each folder', async () => {
    const s = await start({ maxFileBytes: 64 * KiB, maxDropBytes: 100 * KiB, minFreeBytes: 0 });
    const empties = (n: number, folder: string) =>
      Array.from({ length: n }, (_, k) => ({ path: `${folder}/I${k}`, body: '' }));
    // 24 files and their folder: 100 KiB.
    expect((await stage(s, randomUUID(), empties(24, 'A'))).status).toBe(200);
    const r = await stage(s, randomUUID(), empties(25, 'B'));
    expect(r.status).toBe(413);
    expect(r.body).toMatch(/at most 100 KiB per drop/);
  });

  it('says in words what is wrong with a malformed list of files', async () => {
    const s = await start();
    const drop = randomUUID();
    const post = (body: Buffer | string) =>
      raw(s.port, `/api/stage?drop=${drop}`, {
        method: 'POST',
        headers: { ...pageHeaders(s), 'Content-Type': 'application/octet-stream' },
        body,
      });
    const many = Array.from({ length: STAGE_BATCH_MAX_FILES + 1 }, (_, k) => ({ path: `I${k}`, size: 0 }));
    const cases: [Buffer | string, RegExp][] = [
      ['', /ended before its list of files did/],
      ['[{"path":"a","size":1}]', /ended before its list of files did/],
      ['{not json\n', /not valid JSON/],
      ['[]\n', /must name 1 to 1000 files/],
      [`${JSON.stringify(many)}\n`, /must name 1 to 1000 files/],
      ['[{"path":"a","size":-1}]\n', /size in whole bytes/],
      ['[{"path":"a","size":1.5}]\nx', /size in whole bytes/],
      ['[{"path":"a","size":"1"}]\nx', /size in whole bytes/],
      ['[{"size":1}]\nx', /path of 1 to 4096 characters/],
      ['[null]\n', /path of 1 to 4096 characters/],
      ['[{"path":"..","size":0}]\n', /relative file path/],
      ['[{"path":"a\\\\b","size":0}]\n', /relative file path/],
      ['[{"path":"a/\\ud800","size":0}]\n', /not well-formed text/],
      [`${JSON.stringify([{ path: `${'d/'.repeat(33)}f`, size: 0 }])}\n`, /more than 32 folders deep/],
      [Buffer.alloc(STAGE_MANIFEST_MAX_BYTES + KiB, 0x5b), /longer than 1048576 bytes/],
    ];
    for (const [body, words] of cases) {
      const r = await post(body);
      expect(r.status, String(body).slice(0, 40)).toBe(400);
      expect(r.body).toMatch(words);
    }
    expect(filesUnder(join(servers.stagingDir(), drop))).toEqual([]);
  });

  it('removes what it wrote of a batch whose connection is cut', async () => {
    const s = await start();
    const drop = randomUUID();
    const body = stageBody([
      { path: 'A/I1', body: Buffer.alloc(8 * KiB, 1) },
      { path: 'A/I2', body: Buffer.alloc(8 * KiB, 2) },
    ]);
    const req = request({
      host: '127.0.0.1',
      port: s.port,
      path: `/api/stage?drop=${drop}`,
      method: 'POST',
      headers: {
        ...pageHeaders(s),
        'Content-Type': 'application/octet-stream',
        'Content-Length': body.length,
      },
    });
    req.on('error', () => undefined);
    // The first file and half the second, then the connection goes.
    req.write(body.subarray(0, body.length - 4 * KiB));
    const dir = join(servers.stagingDir(), drop, 'A');
    while (!existsSync(join(dir, 'I2'))) await new Promise((r) => setTimeout(r, 10));
    req.destroy();
    while (filesUnder(dir).length > 0) await new Promise((r) => setTimeout(r, 10));
    expect(filesUnder(dir)).toEqual([]);
  });
});

describe('the batch body reader', () => {
  it('reads the list and the files across chunks of any size', async () => {
    const files = [
      { path: 'CT/I1', body: Buffer.from('first file') },
      { path: 'CT/é/I2', body: Buffer.from('second') },
    ];
    const bytes = stageBody(files);
    for (const size of [1, 2, 7, 64, bytes.length]) {
      const body = new BodyReader(pieces(bytes, size));
      const list = await readStageManifest(body);
      expect(list).toEqual(files.map((f) => ({ path: f.path, size: f.body.length })));
      const got: Buffer[] = [];
      for (const f of files) {
        const parts: Buffer[] = [];
        for (let left = f.body.length; left > 0;) {
          const piece = await body.next(left);
          expect(piece).toBeDefined();
          parts.push(piece!);
          left -= piece!.length;
        }
        got.push(Buffer.concat(parts));
      }
      expect(got).toEqual(files.map((f) => f.body));
      expect(await body.next(1)).toBeUndefined();
      expect(body.taken).toBe(bytes.length);
    }
  });
});
