import { readFile, readdir, writeFile } from 'node:fs/promises';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src-shared/errors.js';
import {
  client,
  failure,
  gets,
  MAX_ATTEMPTS,
  redirect,
  storage,
  transferTests,
} from './transfers.test-support.js';

/**
 * Transfers to and from pre-signed addresses against real storage stand-ins on loopback: what the
 * poll result's `size` may and may not decide (its unit is not stated), how many tries a download
 * that keeps failing gets, and redirects (S3 answers 307 for a bucket in another region). Addresses
 * sent as written: transfers-addresses.test.ts; a cut-off download resumed: transfers-resume.test.ts.
 */
const { dir, spider } = transferTests();

describe("the poll result's size, whose unit is not stated", () => {
  it('is a hint: a size in kB neither fails a download nor repeats it, with a length or chunked', async () => {
    const s = await storage((req, res) => {
      if (req.path.startsWith('/chunked')) {
        res.writeHead(200);
        res.write(spider().subarray(0, 30_000));
        res.end(spider().subarray(30_000));
      } else res.writeHead(200, { 'Content-Length': spider().length }).end(spider());
    });
    const { c, logs } = client();
    try {
      const kB = Math.round(spider().length / 1024);
      const totals: [number, number | undefined][] = [];
      for (const name of ['length', 'chunked']) {
        const got = await c.download(`${s.origin}/${name}.stl?sig=1`, join(dir(), name, 'm.stl'), {
          expectedSize: kB,
          onProgress: (done, total) => totals.push([done, total]),
        });
        expect(got.bytes).toBe(spider().length);
        expect((await readFile(got.path)).equals(spider())).toBe(true);
      }
      expect(gets(s)).toEqual(['/length.stl?sig=1', '/chunked.stl?sig=1']);
      // A total is never below the bytes done: the hint is dropped once the bytes pass it.
      expect(totals.filter(([done, total]) => total !== undefined && total < done)).toEqual([]);
      expect(totals.at(-1)).toEqual([spider().length, undefined]);
      const downloaded = logs.filter((l) => l.msg === 'downloaded').map((l) => l.data.announcedSize);
      expect(downloaded).toEqual([kB, kB]);
      // In bytes it confirms the download, and says so.
      await c.download(`${s.origin}/length.stl?sig=1`, join(dir(), 'bytes', 'm.stl'), {
        expectedSize: spider().length,
      });
      expect(logs.filter((l) => l.msg === 'downloaded').at(-1)?.data.sizeConfirmed).toBe(true);
    } finally {
      c.close();
    }
  });
});

describe('a download coded by the storage', () => {
  it('is decoded (gzip, deflate, br) while asking for none, and refused in words when not decodable', async () => {
    // S3 serves an object with the Content-Encoding it was stored with, whatever the request asks:
    // a review's gzipped STL was kept as it came and refused six times as "not an STL mesh".
    const coded: Record<string, Buffer> = {
      gzip: gzipSync(spider()),
      deflate: deflateSync(spider()),
      br: brotliCompressSync(spider()),
      zstd: spider(),
    };
    const s = await storage((req, res) => {
      const coding = req.path.slice(1, req.path.indexOf('.'));
      const body = coded[coding]!;
      res.writeHead(200, { 'Content-Length': body.length, 'Content-Encoding': coding }).end(body);
    });
    const { c } = client();
    try {
      for (const coding of ['gzip', 'deflate', 'br']) {
        const got = await c.download(`${s.origin}/${coding}.stl?sig=1`, join(dir(), coding, 'm.stl'));
        expect(got.bytes).toBe(spider().length);
        expect((await readFile(got.path)).equals(spider())).toBe(true);
      }
      expect(s.seen.every((r) => r.headers['accept-encoding'] === 'identity')).toBe(true);
      const refused = await failure(c.download(`${s.origin}/zstd.stl?sig=1`, join(dir(), 'zstd', 'm.stl')));
      expect(refused.message).toBe(
        'The storage sent the mesh coded as "zstd", which scan2mesh cannot decode.',
      );
      expect(await readdir(join(dir(), 'zstd'))).toEqual([]);
    } finally {
      c.close();
    }
  });
});

describe('a download that keeps failing', () => {
  it('ends in a final error after a few attempts when its body is cut off every time', async () => {
    const s = await storage((_req, res) => {
      res.writeHead(200, { 'Content-Length': 1000 });
      res.write(Buffer.alloc(10), () => res.destroy());
    });
    const { c } = client();
    try {
      const e = await failure(c.download(`${s.origin}/m.stl?sig=1`, join(dir(), 'cut', 'm.stl')));
      expect([e.code, e.retryable]).toEqual(['service', false]);
      expect(e.message).toMatch(/was cut off/);
      expect(gets(s)).toHaveLength(MAX_ATTEMPTS);
      expect(await readdir(join(dir(), 'cut'))).toEqual([]);
    } finally {
      c.close();
    }
  });

  it('is downloaded again a few times when the file is refused by verify, then fails with its error', async () => {
    const s = await storage((_req, res) => void res.writeHead(200, { 'Content-Length': 3 }).end('abc'));
    const { c } = client();
    const refusal = new AppError('service', 'not a whole mesh');
    const checked: number[] = [];
    try {
      const e = await failure(
        c.download(`${s.origin}/m.stl?sig=1`, join(dir(), 'verify', 'm.stl'), {
          verify: (_path, bytes) => {
            checked.push(bytes);
            return Promise.reject(refusal);
          },
        }),
      );
      expect(e).toBe(refusal);
      expect(checked).toEqual([3, 3, 3]);
      expect(gets(s)).toHaveLength(MAX_ATTEMPTS);
      expect(await readdir(join(dir(), 'verify'))).toEqual([]);
    } finally {
      c.close();
    }
  });
});

describe('a storage refusal that echoes the signed request', () => {
  it('is said by its code and message, without the signature, the string signed or the key', async () => {
    // What S3 answers a pre-signed GET whose signature does not match.
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message>' +
      '<AWSAccessKeyId>AKIAEXAMPLEKEY123</AWSAccessKeyId><StringToSign>AWS4-HMAC-SHA256 20261130T000000Z x</StringToSign>' +
      '<SignatureProvided>DLSIGdeadbeef0123456789</SignatureProvided><StringToSignBytes>41 57 53</StringToSignBytes>' +
      '<CanonicalRequest>GET /patients/m.stl X-Amz-Credential=AKIAEXAMPLEKEY123</CanonicalRequest><RequestId>1</RequestId></Error>';
    const s = await storage((_req, res) => {
      res
        .writeHead(403, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(xml) })
        .end(xml);
    });
    const { c, logs } = client();
    try {
      const e = await failure(
        c.download(
          `${s.origin}/m.stl?X-Amz-Signature=DLSIGdeadbeef0123456789`,
          join(dir(), 'refused', 'm.stl'),
        ),
      );
      expect(e.message).toMatch(/SignatureDoesNotMatch: The request signature we calculated does not match/);
      for (const secret of ['DLSIG', 'AKIAEXAMPLE', 'AWS4-HMAC', 'CanonicalRequest'])
        expect(`${e.message} ${JSON.stringify(logs)}`, secret).not.toContain(secret);
    } finally {
      c.close();
    }
  });
});

describe('redirects', () => {
  it('are followed for a GET (301, 302, 303, 307, 308), to another origin too, one GET each, no Authorization', async () => {
    const other = await storage((req, res) => {
      if (req.path.startsWith('/h3')) redirect(res, 303, '/h4?sig=4');
      else redirect(res, 307, `${first.origin}/h5?sig=5`);
    });
    const first = await storage((req, res) => {
      if (req.path.startsWith('/start')) redirect(res, 301, 'h2?sig=2');
      else if (req.path.startsWith('/h2')) redirect(res, 302, `${other.origin}/h3?sig=3`);
      else if (req.path.startsWith('/h5')) redirect(res, 308, '/file?sig=6#fragment');
      else res.writeHead(200, { 'Content-Length': spider().length }).end(spider());
    });
    const { c, logs } = client();
    try {
      const got = await c.download(`${first.origin}/start?sig=1`, join(dir(), 'redirected', 'm.stl'));
      expect((await readFile(got.path)).equals(spider())).toBe(true);
      expect(gets(first)).toEqual(['/start?sig=1', '/h2?sig=2', '/h5?sig=5', '/file?sig=6']);
      expect(gets(other)).toEqual(['/h3?sig=3', '/h4?sig=4']);
      const all = [...first.seen, ...other.seen];
      expect(all.map((r) => r.headers.authorization)).toEqual(all.map(() => undefined));
      const hops = logs.filter((l) => l.msg === 'redirected');
      expect(hops.map((l) => l.data.status)).toEqual([301, 302, 303, 307, 308]);
      // Signatures are in the query: never in the log.
      expect(JSON.stringify(logs)).not.toMatch(/sig=/);
    } finally {
      c.close();
    }
  });

  it('stop after five, and never lead to plain http on another computer', async () => {
    const s = await storage((req, res) => {
      const n = Number(/^\/loop(\d+)/.exec(req.path)?.[1] ?? 0);
      if (req.path.startsWith('/loop')) redirect(res, 302, `/loop${n + 1}?sig=${n + 1}`);
      else if (req.path.startsWith('/away')) redirect(res, 307, 'http://192.0.2.1/bucket/m.stl?sig=secret');
      else res.writeHead(302).end();
    });
    const { c } = client();
    try {
      const loop = await failure(c.download(`${s.origin}/loop0?sig=0`, join(dir(), 'loop', 'm.stl')));
      expect(loop.message).toMatch(/more than 5 times/);
      expect(gets(s)).toHaveLength(6);
      const away = await failure(c.download(`${s.origin}/away?sig=1`, join(dir(), 'away', 'm.stl')));
      expect(away.message).toMatch(
        /http:\/\/192\.0\.2\.1\/bucket\/m\.stl\) uses plain http to another computer/,
      );
      expect(away.message).not.toMatch(/secret/);
      const nowhere = await failure(c.download(`${s.origin}/nowhere?sig=1`, join(dir(), 'nowhere', 'm.stl')));
      expect(nowhere.message).toMatch(/no Location/);
      // None of these is tried again: the same answer would come.
      expect(gets(s)).toHaveLength(8);
    } finally {
      c.close();
    }
  });

  it('of an upload: 307 and 308 send the body again from the file; 302 is not followed', async () => {
    const file = join(dir(), 'scan.zip');
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 253));
    await writeFile(file, bytes);
    const other = await storage((req, res) => {
      if (req.path.startsWith('/regional')) redirect(res, 308, `${first.origin}/final?sig=3`);
      else res.writeHead(200).end();
    });
    const first = await storage((req, res) => {
      if (req.path.startsWith('/bucket')) redirect(res, 307, `${other.origin}/regional?sig=2`);
      else if (req.path.startsWith('/moved')) redirect(res, 302, '/final?sig=9');
      else res.writeHead(200).end();
    });
    const { c } = client();
    try {
      await c.upload(`${first.origin}/bucket?sig=1`, file);
      expect(first.seen.map((r) => [r.method, r.path])).toEqual([
        ['PUT', '/bucket?sig=1'],
        ['PUT', '/final?sig=3'],
      ]);
      expect(other.seen.map((r) => [r.method, r.path])).toEqual([['PUT', '/regional?sig=2']]);
      const puts = [...first.seen, ...other.seen];
      // Each address got the whole file, as it was announced, and no Authorization.
      expect(puts.map((r) => r.body.equals(bytes))).toEqual([true, true, true]);
      expect(puts.map((r) => r.headers['content-length'])).toEqual(puts.map(() => String(bytes.length)));
      expect(puts.map((r) => r.headers.authorization)).toEqual([undefined, undefined, undefined]);
      const moved = await failure(c.upload(`${first.origin}/moved?sig=1`, file));
      expect(moved.message).toMatch(/302, a redirect not followed for uploads/);
      expect(first.seen.map((r) => r.path).slice(2)).toEqual(['/moved?sig=1']);
    } finally {
      c.close();
    }
  });
});
