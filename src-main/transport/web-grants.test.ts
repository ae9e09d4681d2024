import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { RunningWebServer } from './web-server.js';
import { DEFAULT_STAGE_LIMITS, stageLimitsFromEnv } from './web-stage.js';
import { grantsOf, invoke, pageHeaders, raw, stage, webServerPerTest } from './web-request.test-support.js';

const MULTIFRAME = resolve(
  process.cwd(),
  '..',
  'shared',
  'fixtures',
  'dicom',
  'multiframe',
  'enhanced-ct-nema-ct0012-2frames.dcm',
);
const KiB = 1024;
const MiB = 1024 * KiB;

/** Lines of a system file long enough that finding one in an answer means the file was read. */
function telltaleLines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length >= 8 && !l.startsWith('#'));
}

describe('web transport: the page names files only through grants', () => {
  const servers = webServerPerTest();
  const start = servers.start;

  const stageOne = (
    s: RunningWebServer,
    drop: string,
    path: string,
    body: Buffer | string,
    chunked = false,
  ) => stage(s, drop, [{ path, body }], chunked);

  it('refuses a path for scans.intake, and no byte of the file comes back', async () => {
    const s = await start();
    const targets = ['/etc/ssh/ssh_config', '/etc/passwd'].filter((p) => existsSync(p));
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) {
      const asPath = await invoke(s, 'scans.intake', { paths: [target] });
      expect(asPath.envelope).toMatchObject({ ok: false, error: { code: 'bad-request' } });
      expect(String(asPath.envelope.error?.message)).toMatch(/only files you chose.*grant/);
      // A path where a grant id belongs is not a grant either.
      const asGrant = await invoke(s, 'scans.intake', { grants: [target] });
      expect(asGrant.envelope).toMatchObject({ ok: false, error: { code: 'bad-request' } });
      for (const answer of [asPath.text, asGrant.text])
        for (const line of telltaleLines(target)) expect(answer).not.toContain(line);
    }
    // An id the transport never issued is refused in words.
    const made = await invoke(s, 'scans.intake', { grants: ['AAAAAAAAAAAAAAAAAAAAAAAA'] });
    expect(made.envelope).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(String(made.envelope.error?.message)).toMatch(/not given that file/);
  });

  it('reads a dropped scan through the grant its stage answered with', async () => {
    const s = await start();
    const drop = randomUUID();
    const staged = await stageOne(s, drop, 'enhanced-ct.dcm', readFileSync(MULTIFRAME));
    expect(staged.status).toBe(200);
    const [grant] = grantsOf(staged);
    expect(grant?.name).toBe('enhanced-ct.dcm');
    const read = await invoke(s, 'scans.intake', { grants: [grant!.id] });
    expect(read.envelope.ok).toBe(true);
    const result = read.envelope.value as { series: unknown[] };
    expect(result.series).toHaveLength(1);
  });

  it('caps the stage per file and per drop with a 413 in words, and keeps nothing of a refused file', async () => {
    const s = await start({ maxFileBytes: 64 * KiB, maxDropBytes: 160 * KiB, minFreeBytes: 0 });
    const limits = await raw(s.port, '/api/stage', { headers: pageHeaders(s) });
    expect(JSON.parse(limits.body)).toEqual({
      maxFileBytes: 64 * KiB,
      maxDropBytes: 160 * KiB,
      minFreeBytes: 0,
    });

    const drop = randomUUID();
    const big = Buffer.alloc(100 * KiB, 7);
    // Declared too large: refused before a byte is written.
    const declared = await stageOne(s, drop, 'big.dcm', big);
    expect(declared.status).toBe(413);
    expect(declared.body).toMatch(/larger than web mode accepts \(at most 64 KiB per file\)/);
    expect(existsSync(join(servers.stagingDir(), drop, 'big.dcm'))).toBe(false);
    // Streamed without a length: refused when the limit is crossed, the partial copy removed.
    const streamed = await stageOne(s, drop, 'streamed.dcm', big, true);
    expect(streamed.status).toBe(413);
    expect(streamed.body).toMatch(/at most 64 KiB per file/);
    expect(existsSync(join(servers.stagingDir(), drop, 'streamed.dcm'))).toBe(false);

    // 60 + 60 KiB fit the drop; the third file would make it 180 KiB.
    const part = Buffer.alloc(60 * KiB, 1);
    expect((await stageOne(s, drop, 'series/I1', part)).status).toBe(200);
    expect((await stageOne(s, drop, 'series/I2', part)).status).toBe(200);
    const third = await stageOne(s, drop, 'series/I3', part);
    expect(third.status).toBe(413);
    expect(third.body).toMatch(/at most 160 KiB per drop/);
    // Another drop has its own allowance.
    expect((await stageOne(s, randomUUID(), 'I1', part)).status).toBe(200);
  });

  it('leaves the disk its reserve: a file that would eat into it gets a 507 in words, and nothing is kept', async () => {
    // A reserve larger than any disk: the real free space of the stage's disk is always short of it.
    const s = await start({ ...DEFAULT_STAGE_LIMITS, minFreeBytes: Number.MAX_SAFE_INTEGER });
    const drop = randomUUID();
    const part = Buffer.alloc(60 * KiB, 1);
    for (const chunked of [false, true]) {
      const r = await stageOne(s, drop, 'series/I1', part, chunked);
      expect(r.status).toBe(507);
      expect(r.body).toMatch(
        /^The disk that holds web mode's uploads has [\d.]+ (GiB|MiB|KiB|bytes) free, and web mode leaves [\d.]+ PiB free: what is being added does not fit\. Free some space \(or remove finished scans\), or start web mode with SCAN2MESH_STAGE_MIN_FREE_MB set lower\./,
      );
      expect(existsSync(join(servers.stagingDir(), drop, 'series', 'I1'))).toBe(false);
    }
  });

  it('counts what uploads in progress will still write: four that each fit the reserve do not fill it together', async () => {
    // The page sends four files at a time; each read of the free space saw only what the others had
    // written so far, and four 5 MiB files went into 6 MiB of room (a review measured 15 MiB eaten
    // into the reserve). A fixed free space stands in for the disk: the test is about the count.
    const reserve = 64 * MiB;
    // Answered once all four have asked: every upload is then registered, none has written yet.
    let asked = 0;
    let allAsked: () => void = () => undefined;
    const together = new Promise<void>((ok) => (allAsked = ok));
    const freeSpace = async (): Promise<number> => {
      if (++asked === 4) allAsked();
      await together;
      return reserve + 6 * MiB;
    };
    const s = await start({ ...DEFAULT_STAGE_LIMITS, minFreeBytes: reserve }, freeSpace);
    const drop = randomUUID();
    const file = Buffer.alloc(5 * MiB, 3);
    const answers = await Promise.all([1, 2, 3, 4].map((n) => stageOne(s, drop, `series/I${n}`, file)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 507, 507, 507]);
    for (const a of answers.filter((r) => r.status === 507))
      expect(a.body).toMatch(
        /has 65 MiB free, and web mode leaves 64 MiB free: what is being added does not fit\./,
      );
    // Once it is written, the next file finds the room (the fixed figure does not shrink).
    expect((await stageOne(s, drop, 'series/I5', file)).status).toBe(200);
  });

  it('answers an oversized JSON call with a 413 that says what happened', async () => {
    const s = await start();
    const r = await raw(s.port, '/api/invoke/profiles.list', {
      method: 'POST',
      headers: { ...pageHeaders(s), 'Content-Type': 'application/json' },
      body: JSON.stringify({ padding: 'x'.repeat(5 * 1024 * KiB) }),
    });
    expect(r.status).toBe(413);
    expect(r.body).toMatch(/larger than the app accepts \(at most 4 MiB\)/);
  });

  it('has generous default stage limits for CBCT that the environment can change', () => {
    expect(DEFAULT_STAGE_LIMITS).toEqual({
      maxFileBytes: 2 * 1024 ** 3,
      maxDropBytes: 20 * 1024 ** 3,
      minFreeBytes: 1024 ** 3,
    });
    expect(stageLimitsFromEnv({})).toEqual(DEFAULT_STAGE_LIMITS);
    const warned: string[] = [];
    const limits = stageLimitsFromEnv(
      {
        SCAN2MESH_STAGE_MAX_FILE_MB: '4096',
        SCAN2MESH_STAGE_MAX_DROP_MB: 'lots',
        SCAN2MESH_STAGE_MIN_FREE_MB: '0',
      },
      (m) => warned.push(m),
    );
    expect(limits).toEqual({
      maxFileBytes: 4 * 1024 ** 3,
      maxDropBytes: DEFAULT_STAGE_LIMITS.maxDropBytes,
      minFreeBytes: 0,
    });
    expect(warned).toEqual([
      expect.stringMatching(/SCAN2MESH_STAGE_MAX_DROP_MB="lots" is not a positive number/),
    ]);
  });
});
