import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEngine } from '../engine/local-engine.js';
import { BUNNY_PLY, SPIDER_STL, startTestEngine } from '../service/test-engine.test-support.js';
import { until, DICOM, FAST, harness, type Harness } from './jobs.test-support.js';
import { stagingPath } from './output-place.js';
import type { JobView, MeshChoice } from '../../src-shared/jobs.js';

/**
 * The output phase against a service that says the size of each mesh in kB (the interface does not
 * state the unit) and sends meshes chunked: the local engine behind a proxy that says the sizes so,
 * relays downloads without a length, and counts the GETs. Each mesh must be saved whole with one GET,
 * and a mesh staged by an earlier run must be taken as it is.
 */
interface ServiceInKb {
  origin: string;
  /** GETs of pre-signed download addresses, by path. */
  downloads: string[];
  /** While set, polls are answered "processing" without asking the engine. */
  hold: boolean;
  /** While set, every mesh is sent without its last byte (it still ends with the last chunk). */
  cutLastByte: boolean;
  /** While set, storage refuses every download as expired, with this status (S3's is 403). */
  refuseDownloads: false | number;
  /** While set, the finished job's answer lists this record twice, the copy for another file. */
  listTwice: number | undefined;
  /** Resolves at the first poll answered while held: the job is processing. */
  held: Promise<void>;
  server: Server;
}

async function serviceInKb(engine: RunningEngine): Promise<ServiceInKb> {
  const engineOrigin = new URL(engine.baseUrl).origin;
  let heldPoll = (): void => {};
  const self: ServiceInKb = {
    origin: '',
    downloads: [],
    hold: true,
    cutLastByte: false,
    refuseDownloads: false,
    listTwice: undefined,
    held: new Promise<void>((resolve) => (heldPoll = resolve)),
    server: createServer((req, res) => {
      const url = req.url ?? '/';
      if (self.hold && url.includes('/pollJobResults')) {
        heldPoll();
        return void res.writeHead(202, { 'Content-Type': 'text/plain' }).end('PROCESSING');
      }
      if (req.method === 'GET' && url.startsWith('/storage/')) {
        self.downloads.push(url.split('?')[0] as string);
        if (self.refuseDownloads)
          return void res
            .writeHead(self.refuseDownloads, {
              'Content-Type': 'application/xml',
            })
            .end('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
      }
      const upstream = request(
        `${engineOrigin}${url}`,
        { method: req.method, headers: req.headers },
        (answer) =>
          relay(answer, res, url, {
            from: engineOrigin,
            to: self.origin,
            cut: self.cutLastByte,
            twice: self.listTwice,
          }),
      );
      req.pipe(upstream);
    }),
  };
  await new Promise<void>((resolve) => self.server.listen(0, '127.0.0.1', resolve));
  self.origin = `http://127.0.0.1:${(self.server.address() as AddressInfo).port}`;
  return self;
}

/** JSON with the engine's addresses made the proxy's, and sizes in kB; anything else without a length. */
function relay(
  answer: IncomingMessage,
  res: ServerResponse,
  url: string,
  { from, to, cut, twice }: { from: string; to: string; cut: boolean; twice: number | undefined },
): void {
  const headers = { ...answer.headers };
  delete headers['content-length'];
  res.writeHead(answer.statusCode ?? 502, headers);
  const json = answer.headers['content-type']?.includes('json') ?? false;
  if (!json && !cut) return void answer.pipe(res);
  const chunks: Buffer[] = [];
  answer.on('data', (c: Buffer) => chunks.push(c));
  answer.on('end', () => {
    if (!json) return void res.end(Buffer.concat(chunks).subarray(0, -1));
    let text = Buffer.concat(chunks).toString('utf8').split(from).join(to);
    if (url.includes('/pollJobResults') && answer.statusCode === 200) {
      const result = JSON.parse(text) as { outputFiles: { meshes: { size: number; url: string }[] } };
      const { meshes } = result.outputFiles;
      for (const mesh of meshes) mesh.size = Math.max(1, Math.round(mesh.size / 1024));
      const copied = twice === undefined ? undefined : meshes[twice];
      if (copied) meshes.push({ ...copied, url: copied.url.replace(/(\?|$)/, '-other$1') });
      text = JSON.stringify(result);
    }
    res.end(text);
  });
}

/** The check's note on the fixture service's STL: the viewer's warning of its flat triangles. */
const SPIDER_NOTE = '56 of 1,368 triangles are degenerate (zero area) and draw nothing.';

/** A mandible as STL and both nerves in one PLY: the fixture service sends a real mesh for each. */
const TWO_MESHES: MeshChoice[] = [
  { structures: ['mandible'], extension: '.stl' },
  { structures: ['left_nerve', 'right_nerve'], extension: '.ply' },
];

describe('the output phase, with sizes in kB and chunked downloads', () => {
  let engine: RunningEngine;
  let service: ServiceInKb;
  let h: Harness;

  beforeAll(async () => {
    ({ engine } = await startTestEngine());
    service = await serviceInKb(engine);
    h = await harness({ ...engine, baseUrl: `${service.origin}${new URL(engine.baseUrl).pathname}` });
  });

  afterAll(async () => {
    await h?.close();
    await new Promise<void>((resolve) => service?.server.close(() => resolve()));
    await engine?.close();
  });

  /** The multi-frame fixture submitted for `meshes`, its files named by `namingTemplate`. */
  async function submitMultiframe(meshes: MeshChoice[], namingTemplate: string): Promise<JobView> {
    const scan = await h.scans.intake([join(DICOM, 'multiframe')]);
    const [job] = await h.manager.submit(
      { seriesIds: [scan.series[0]!.id], meshes, deidentify: false, outputDir: h.outDir },
      { namingTemplate },
    );
    return job!;
  }

  /** A job of the mandible as STL, waited for to its end: the job, and the GETs of meshes it made. */
  async function mandibleJob(): Promise<{ ended: JobView | undefined; gets: number }> {
    const before = service.downloads.length;
    const job = await submitMultiframe(
      [{ structures: ['mandible'], extension: '.stl' }],
      '{jobId}/{structures}{ext}',
    );
    const [ended] = await h.manager.waitFor([job.id]);
    return { ended, gets: service.downloads.length - before };
  }

  it('saves each mesh whole with one GET, and takes a mesh staged by an earlier run as it is', async () => {
    const job = await submitMultiframe(TWO_MESHES, '{structures}{ext}');
    await service.held;
    // An earlier run downloaded the STL and was stopped before it gave it its name.
    await mkdir(h.outDir, { recursive: true });
    await writeFile(stagingPath(join(h.outDir, 'mandible.stl'), job.id, 0), await readFile(SPIDER_STL));
    service.hold = false;
    const [done] = await h.manager.waitFor([job.id]);
    expect([done?.state, done?.error]).toEqual(['done', undefined]);
    expect(service.downloads).toHaveLength(1);
    expect(service.downloads[0]).toMatch(/\/outputs\/1\/left_nerve\+right_nerve\.ply$/);
    const ply = join(h.outDir, 'left_nerve+right_nerve.ply');
    expect((await readFile(ply)).equals(await readFile(BUNNY_PLY))).toBe(true);
    expect(done?.outputs.map((o) => [o.path, o.bytes])).toEqual([
      [join(h.outDir, 'mandible.stl'), (await stat(SPIDER_STL)).size],
      [ply, (await stat(BUNNY_PLY)).size],
    ]);
    // What the viewer warns of in the spider is said of the mesh staged by the earlier run too.
    expect(done?.outputs.map((o) => o.note)).toEqual([
      `fixture mesh standing in for mandible. ${SPIDER_NOTE}`,
      'fixture mesh standing in for left_nerve+right_nerve',
    ]);
  });

  it('fails a job whose mesh comes incomplete every time, after a few GETs, with a clear error', async () => {
    service.cutLastByte = true;
    const { ended: failed, gets } = await mandibleJob();
    expect(failed?.state).toBe('failed');
    expect(failed?.error?.message).toMatch(
      /mandible\.stl is not a usable \.stl mesh: it is a binary STL whose header announces 1,368 triangles \(68,484 bytes\) but the file has only 68,483 bytes, so it is truncated/,
    );
    // The download's own attempts, and no more: the job is not waited out for the same broken file.
    expect(gets).toBe(FAST.client!.retry!.maxAttempts);
  });

  // A review: a storage that answers a refused signature 401 failed the job at once, advising a new
  // (billed) one, where fresh addresses were what was needed, as for 403.
  it.each([403, 401])(
    'fails a job whose download address is refused (%i), a fresh one too, after one fresh poll',
    async (status) => {
      service.cutLastByte = false;
      service.refuseDownloads = status;
      const { ended: failed, gets } = await mandibleJob();
      expect(failed?.state).toBe('failed');
      // The storage's own words (its 403 says why), then what was tried.
      expect(failed?.error?.message).toMatch(
        status === 403
          ? /Request has expired.*It was refused again with a fresh address/
          : /It was refused again with a fresh address/,
      );
      expect(gets).toBe(2);
      service.refuseDownloads = false;
    },
  );

  it('asks again for an output the service lists as still coming, and saves it once it is there', async () => {
    // A review: "Pending" outputs of a finished job were taken for not made at once; a plain retry
    // then sent the whole job again.
    service.refuseDownloads = false;
    engine.setFaults({ outputStatusAt: { 1: { status: 'Pending' } } });
    const created = engine.stats.jobsCreated;
    const job = await submitMultiframe(TWO_MESHES, '{jobId}/{structures}{ext}');
    await until(() => /not ready yet/.test(h.manager.get(job.id)?.trouble?.message ?? ''));
    const waiting = h.manager.get(job.id)!;
    expect(waiting.state).toBe('downloading');
    expect(waiting.trouble?.message).toMatch(
      /lists left_nerve\+right_nerve\.ply \("Pending"\) as not ready yet/,
    );
    // The mesh that is ready is saved meanwhile.
    expect(waiting.outputs.map((o) => o.structures)).toEqual([['mandible']]);
    engine.setFaults({});
    const [done] = await h.manager.waitFor([job.id]);
    expect([done?.state, done?.error]).toEqual(['done', undefined]);
    expect(done?.outputs.map((o) => o.structures)).toEqual([['mandible'], ['left_nerve', 'right_nerve']]);
    expect(engine.stats.jobsCreated - created).toBe(1);
  });

  it('waits the same for a job whose every mesh is still coming, with no second service job', async () => {
    // A review: the one mesh listed Pending failed the job at once, and its retry made and billed
    // a second service job, while the first one's mesh was a poll away.
    service.refuseDownloads = false;
    engine.setFaults({ outputStatusAt: { 0: { status: 'Pending' } } });
    const created = engine.stats.jobsCreated;
    const job = await submitMultiframe(
      [{ structures: ['mandible'], extension: '.stl' }],
      '{jobId}/{structures}{ext}',
    );
    await until(() => /not ready yet/.test(h.manager.get(job.id)?.trouble?.message ?? ''));
    expect(h.manager.get(job.id)?.state).toBe('downloading');
    engine.setFaults({});
    const [done] = await h.manager.waitFor([job.id]);
    expect([done?.state, done?.error]).toEqual(['done', undefined]);
    expect(engine.stats.jobsCreated - created).toBe(1);
  });

  it('saves the meshes the service made when it lists another as not made, and fails the job naming it', async () => {
    service.refuseDownloads = false;
    engine.setFaults({ outputStatusAt: { 1: { status: 'Failed', message: 'No nerve canal was found.' } } });
    const before = service.downloads.length;
    const job = await submitMultiframe(TWO_MESHES, '{jobId}/{structures}{ext}');
    const [failed] = await h.manager.waitFor([job.id]);
    expect(failed?.state).toBe('failed');
    expect(failed?.error?.message).toMatch(
      /made 1 of the 2 meshes .*left_nerve\+right_nerve\.ply has status "Failed": No nerve canal was found\. The mesh it made is saved\./,
    );
    // Only the mesh that was made is fetched, and it is kept with the failed job.
    expect(service.downloads.slice(before)).toHaveLength(1);
    expect(failed?.outputs.map((o) => o.structures)).toEqual([['mandible']]);
    expect((await readFile(failed!.outputs[0]!.path)).equals(await readFile(SPIDER_STL))).toBe(true);
    // Downloaded, checked, and saved with what the viewer will warn of.
    expect(failed?.outputs[0]?.note).toBe(`fixture mesh standing in for mandible. ${SPIDER_NOTE}`);
    // A retry sends the job again and, the service now making both, ends done with both.
    engine.setFaults({});
    await h.manager.retry(job.id);
    const [done] = await h.manager.waitFor([job.id]);
    expect([done?.state, done?.error]).toEqual(['done', undefined]);
    expect(done?.outputs.map((o) => o.structures)).toEqual([['mandible'], ['left_nerve', 'right_nerve']]);
    // The first attempt's mandible, in the folder of the first service job, goes with that folder once
    // the retry's is saved: no file is left that no job lists (a review).
    await expect(stat(dirname(failed!.outputs[0]!.path))).rejects.toMatchObject({ code: 'ENOENT' });
    const folder = dirname(done!.outputs[0]!.path);
    expect((await readdir(folder)).sort()).toEqual([
      'left_nerve+right_nerve.ply',
      'mandible.stl',
      'scan2mesh-job.json',
    ]);
  });
  it('on a retry, saves each mesh where the first attempt saved it, unless the user changed that file', async () => {
    service.refuseDownloads = false;
    for (const userEdits of [false, true]) {
      engine.setFaults({ outputStatusAt: { 1: { status: 'Failed', message: 'No nerve canal was found.' } } });
      const job = await submitMultiframe(TWO_MESHES, `retry-${userEdits}/{structures}{ext}`);
      const [failed] = await h.manager.waitFor([job.id]);
      const first = failed!.outputs[0]!.path;
      if (userEdits) await writeFile(first, 'solid edited by the user\nendsolid\n');
      engine.setFaults({});
      await h.manager.retry(job.id);
      const [done] = await h.manager.waitFor([job.id]);
      expect(done?.state).toBe('done');
      const names = (await readdir(dirname(first))).filter((n) => n.endsWith('.stl')).sort();
      if (!userEdits) {
        expect(done?.outputs[0]?.path).toBe(first);
        expect(names).toEqual(['mandible.stl']);
      } else {
        // The user's file is theirs: kept as it is, the retry's mesh beside it.
        expect(await readFile(first, 'utf8')).toBe('solid edited by the user\nendsolid\n');
        expect(done?.outputs[0]?.path).toBe(join(dirname(first), 'mandible (2).stl'));
        expect(names).toEqual(['mandible (2).stl', 'mandible.stl']);
      }
    }
  });

  it('saves no file for a mesh the answer lists twice as different files, and says so', async () => {
    // A review: a second record for one mesh was ignored without a word, the first taken as the mesh.
    service.refuseDownloads = false;
    engine.setFaults({});
    service.listTwice = 0;
    try {
      const job = await submitMultiframe(TWO_MESHES, '{jobId}/{structures}{ext}');
      const [failed] = await h.manager.waitFor([job.id]);
      expect(failed?.state).toBe('failed');
      expect(failed?.error?.message).toMatch(
        /mandible\.stl has status "Listed more than once": the service's answer lists 2 different records for this mesh/,
      );
      // The other mesh is saved; nothing is saved as the mandible.
      expect(failed?.outputs.map((o) => o.structures)).toEqual([['left_nerve', 'right_nerve']]);
    } finally {
      service.listTwice = undefined;
    }
  });
});
