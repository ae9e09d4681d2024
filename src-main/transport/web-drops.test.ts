import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { request } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { makeableNames } from '../../src-shared/structure-check.js';
import { connectionCapabilities } from '../app/structure-check.js';
import type { Core } from '../app/core.js';
import { createSegmentationProcessor } from '../engine/segmentation/index.js';
import { FIXTURES } from '../scans/scans.test-support.js';
import { testCore } from '../app/core.test-support.js';
import { removeStaleDrops, stagedDropOwner, stagedDropOwnerFile } from '../jobs/staged-drops.js';
import { processStart } from '../platform/process-alive.js';
import { startWebServer, type RunningWebServer } from './web-server.js';
import { pageHeaders, raw, stage, stageBody } from './web-request.test-support.js';

// Web mode's copies of dropped scans are patient data: a reviewer found a drop that was never
// submitted still on disk after web mode was stopped (Ctrl+C, then SIGTERM), for up to a day.

const BOOT_ID = '/proc/sys/kernel/random/boot_id';

/** A web-mode server whose stage is the core's (where the core's releaseDrops looks for drops). */
async function webServerOnCore(): Promise<{ core: Core; stagingDir: string; server: RunningWebServer }> {
  const core = testCore();
  const rendererDir = mkdtempSync(join(tmpdir(), 'renderer-'));
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>scan2mesh</title>');
  const stagingDir = join(core.platform.dataDir, 'staging');
  return { core, stagingDir, server: await startWebServer({ core, rendererDir, stagingDir }) };
}

describe("web mode's staged drops", () => {
  it('go when the session ends, unless a job was made from them', async () => {
    const { core, stagingDir, server } = await webServerOnCore();
    const drop = randomUUID();
    const staged = await stage(server, drop, [
      { path: 'DOE^JANE/slice1.dcm', body: 'not a scan, a copy all the same' },
    ]);
    expect(staged.status).toBe(200);
    const dropDir = join(stagingDir, drop);
    expect(existsSync(join(dropDir, 'DOE^JANE', 'slice1.dcm'))).toBe(true);
    expect(readFileSync(stagedDropOwnerFile(dropDir), 'utf8')).toBe(stagedDropOwner());
    expect(stagedDropOwner()).toMatch(new RegExp(`^${process.pid}( ([0-9a-f-]+:)?\\d+)?$`));
    expect(server.stagedDrops()).toEqual([dropDir]);
    // As web-mode.ts closes: the server, then the session's drops, then the core.
    await server.close();
    await core.releaseDrops(server.stagedDrops());
    await core.dispose();
    expect(existsSync(dropDir)).toBe(false);
    expect(existsSync(stagedDropOwnerFile(dropDir))).toBe(false);
  });

  it('go at once when the page gives up on its drop, and only its own', async () => {
    const { core, stagingDir, server } = await webServerOnCore();
    try {
      const [failed, kept] = [randomUUID(), randomUUID()];
      for (const drop of [failed, kept])
        expect((await stage(server, drop, [{ path: 'CT/I1', body: 'a copy' }])).status).toBe(200);
      const release = (drop: string, headers = pageHeaders(server)) =>
        raw(server.port, `/api/stage?drop=${drop}`, { method: 'DELETE', headers });
      expect((await release(failed, { Host: `127.0.0.1:${server.port}` })).status).toBe(401);
      expect(existsSync(join(stagingDir, failed))).toBe(true);
      expect((await release(failed)).status).toBe(200);
      expect(existsSync(join(stagingDir, failed))).toBe(false);
      expect(existsSync(stagedDropOwnerFile(join(stagingDir, failed)))).toBe(false);
      expect(server.stagedDrops()).toEqual([join(stagingDir, kept)]);
      // Another drop, one this session did not make, and no drop at all are not touched.
      for (const drop of [failed, randomUUID(), '..', '']) expect((await release(drop)).status).toBe(404);
      expect(readFileSync(join(stagingDir, kept, 'CT', 'I1'), 'utf8')).toBe('a copy');
    } finally {
      await server.close();
      await core.dispose();
    }
  });

  // A reviewer: a page that gave up on a batch still being written (its time ran out) released the
  // drop while the server wrote on; what the batch wrote after the removal stayed on disk, no longer
  // the session's to remove.
  it('go only once the batches of the drop under way have ended, and none is taken after', async () => {
    const { core, stagingDir, server } = await webServerOnCore();
    try {
      const drop = randomUUID();
      const dropDir = join(stagingDir, drop);
      // A batch of two files, the second's last bytes held back.
      const body = stageBody([
        { path: 'CT/I1', body: 'the first slice' },
        { path: 'CT/I2', body: 'the second slice' },
      ]);
      const cut = body.length - 4;
      const slow = request({
        host: '127.0.0.1',
        port: server.port,
        path: `/api/stage?drop=${drop}`,
        method: 'POST',
        headers: { ...pageHeaders(server), 'Content-Length': String(body.length) },
      });
      const answered = new Promise<number>((ok, fail) => {
        slow.on('response', (res) => {
          res.resume();
          ok(res.statusCode ?? 0);
        });
        slow.on('error', fail);
      });
      slow.write(body.subarray(0, cut));
      await vi.waitFor(() => expect(existsSync(join(dropDir, 'CT', 'I2'))).toBe(true), { timeout: 20_000 });

      const release = raw(server.port, `/api/stage?drop=${drop}`, {
        method: 'DELETE',
        headers: pageHeaders(server),
      });
      // Once the release is in, a batch of the drop is refused; the one under way is not cut short.
      let n = 0;
      await vi.waitFor(
        async () =>
          expect((await stage(server, drop, [{ path: `late/${n++}`, body: 'late' }])).status).toBe(410),
        { timeout: 20_000 },
      );
      expect(readFileSync(join(dropDir, 'CT', 'I1'), 'utf8')).toBe('the first slice');
      slow.end(body.subarray(cut));
      expect(await answered).toBe(200);
      expect((await release).status).toBe(200);
      expect(existsSync(dropDir)).toBe(false);
      expect(existsSync(stagedDropOwnerFile(dropDir))).toBe(false);
      expect(server.stagedDrops()).toEqual([]);
    } finally {
      await server.close();
      await core.dispose();
    }
  });

  it('of a web mode that is gone are removed at the next start, whatever their age', async () => {
    const stagingDir = mkdtempSync(join(tmpdir(), 'stage-'));
    // A process that has ended: its pid names no process now.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const orphan = join(stagingDir, randomUUID());
    const live = join(stagingDir, randomUUID());
    // A live pid given again to another process (in a container every start is pid 1): the drop's
    // owner file says when its process started, which is not when this one did.
    const reused = join(stagingDir, randomUUID());
    const rebooted = join(stagingDir, randomUUID());
    const liveOlder = join(stagingDir, randomUUID());
    const parentStart = processStart(process.ppid);
    if (existsSync(BOOT_ID)) expect(parentStart).toMatch(`${readFileSync(BOOT_ID, 'utf8').trim()}:`);
    const laterTick = (start: string): string => start.replace(/\d+$/, (t) => String(Number(t) + 1));
    for (const [dir, owner] of [
      [orphan, gone.stdout],
      [live, `${process.ppid} ${parentStart ?? ''}`.trim()],
      // An older version's owner file, the ticks alone, of a live web mode.
      [liveOlder, `${process.ppid} ${parentStart?.split(':').pop() ?? ''}`.trim()],
      ...(parentStart ? [[reused, `${process.ppid} ${laterTick(parentStart)}`] as const] : []),
      // The same pid at the same tick after a reboot: another boot's id.
      ...(parentStart?.includes(':')
        ? [[rebooted, `${process.ppid} ${randomUUID()}:${parentStart.split(':')[1]}`] as const]
        : []),
    ] as const) {
      mkdirSync(join(dir, 'scan'), { recursive: true });
      writeFileSync(join(dir, 'scan', 'slice1.dcm'), 'a copy');
      writeFileSync(stagedDropOwnerFile(dir), owner);
    }
    const removed = await removeStaleDrops(stagingDir, () => [], 24 * 3600_000);
    expect(removed.map((r) => r.path).sort()).toEqual(
      [orphan, ...(parentStart ? [reused] : []), ...(parentStart?.includes(':') ? [rebooted] : [])].sort(),
    );
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(liveOlder)).toBe(true);
  });
});

async function call(core: Core, channel: string, payload: unknown): Promise<unknown> {
  const r = await core.dispatch(channel, payload);
  if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
  return r.value;
}

// A reviewer removed a scan's card in web mode: its copy stayed on disk until web mode was stopped.
describe("a web mode scan's card removed", () => {
  it("takes its staged copy along, unless a job may package it again or the copy is not this process's", async () => {
    const core = testCore();
    const staging = join(core.platform.dataDir, 'staging');
    const ct = join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm');
    /** A drop as the stage makes it: the file in a folder of the drop, the owner file beside it. */
    const staged = (owner: string, files = [ct]): string => {
      const drop = join(staging, randomUUID());
      mkdirSync(join(drop, 'scan'), { recursive: true });
      for (const f of files) copyFileSync(f, join(drop, 'scan', basename(f)));
      writeFileSync(stagedDropOwnerFile(drop), owner);
      return drop;
    };
    const removed = staged(stagedDropOwner());
    // A scan a job can be made of: the real head (14 MB).
    const head = join(FIXTURES, 'ct-human-cranium-teeth');
    const queued = staged(
      stagedDropOwner(),
      readdirSync(head).map((f) => join(head, f)),
    );
    // Another web mode's, which runs (the test's parent process).
    const others = staged(`${process.ppid} ${processStart(process.ppid) ?? ''}`.trim());
    try {
      const ids: string[] = [];
      for (const drop of [removed, queued, others]) {
        const grants = [core.scanGrants.grant(join(drop, 'scan')).id];
        const { series } = (await call(core, 'scans.intake', { grants })) as { series: { id: string }[] };
        expect(series).toHaveLength(1);
        ids.push(series[0]!.id);
      }
      // A job made from the second, held by a paused queue: it may package the scan again.
      const out = join(core.platform.dataDir, 'meshes');
      const checked = (await call(core, 'settings.checkOutputDir', { path: out })) as {
        confirmation: string;
      };
      await call(core, 'settings.setOutputDir', { path: out, confirmation: checked.confirmation });
      await call(core, 'jobs.pause', {});
      const structure = makeableNames(
        connectionCapabilities('local-engine', createSegmentationProcessor()),
      )![0]!;
      await call(core, 'jobs.submit', {
        seriesIds: [ids[1]],
        meshes: [{ structures: [structure], extension: '.stl' }],
        deidentify: false,
      });
      await call(core, 'scans.forget', { seriesIds: [ids[0]] });
      expect(existsSync(removed)).toBe(false);
      expect(existsSync(stagedDropOwnerFile(removed))).toBe(false);
      await call(core, 'scans.forget', { seriesIds: [ids[1], ids[2]] });
      expect(readdirSync(join(queued, 'scan'))).toHaveLength(readdirSync(head).length);
      expect(existsSync(join(others, 'scan', basename(ct)))).toBe(true);
    } finally {
      await core.dispose();
    }
  });
});
