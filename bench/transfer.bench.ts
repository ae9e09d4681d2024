/**
 * Transfer benchmark: a 1 GiB file uploaded to and downloaded from the local engine's pre-signed
 * addresses, through ServiceClient and through curl, against the same server in the same run.
 * The server runs in a child process so that the client's memory is measured alone.
 *
 *   npm run bench -- transfer [--size-mib N] [--rounds N]
 *
 * Goal: client throughput at least 0.8 x curl's, client memory growth under 64 MiB.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { link } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { cpus, loadavg } from 'node:os';
import type { Processor } from '../src-main/engine/processor.js';

const here = dirname(fileURLToPath(import.meta.url));
const OUT = join(here, '.out');
const FIXTURE = resolve(
  here,
  '..',
  '..',
  'shared',
  'fixtures',
  'mesh',
  'skull-invesalius-cranium-400k-binary.stl',
);
const CURL = '/usr/bin/curl';

interface EngineInfo {
  baseUrl: string;
  authUrl: string;
  audience: string;
  clientId: string;
  clientSecret: string;
}

/** FOR THIS BENCHMARK ONLY: the "mesh" is the uploaded file itself, so the download is as big as the upload. */
const passThrough: Processor = {
  validate: () => null,
  async process(job) {
    const input = job.inputs[0];
    if (!input) throw new Error('no input');
    const out = join(job.workDir, 'out.bin');
    await link(input.path, out);
    return { meshes: job.meshes.map(() => ({ path: out })) };
  },
};

async function serve(): Promise<void> {
  const { startLocalEngine } = await import('../src-main/engine/local-engine.js');
  const engine = await startLocalEngine({ processor: passThrough });
  const info: EngineInfo = {
    baseUrl: engine.baseUrl,
    authUrl: engine.authUrl,
    audience: engine.audience,
    clientId: engine.clientId,
    clientSecret: engine.clientSecret,
  };
  process.stdout.write(`${JSON.stringify(info)}\n`);
  const stop = (): void => {
    void engine.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} must be a positive number`);
  return v;
}

/** The big input, made from a real fixture mesh repeated, at bench time. */
function makeInput(path: string, bytes: number): void {
  if (existsSync(path) && statSync(path).size === bytes) return;
  const chunk = readFileSync(FIXTURE);
  const fd = openSync(path, 'w');
  try {
    for (let written = 0; written < bytes;) {
      const n = Math.min(chunk.length, bytes - written);
      written += writeSync(fd, chunk, 0, n);
    }
  } finally {
    closeSync(fd);
  }
}

async function startServer(): Promise<{ child: ChildProcess; info: EngineInfo }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = await new Promise<string>((resolveLine, reject) => {
    lines.once('line', resolveLine);
    child.once('exit', (code) => reject(new Error(`engine exited with ${code}`)));
  });
  return { child, info: JSON.parse(first) as EngineInfo };
}

/** Peak RSS above the level before `fn`, sampled every 5 ms. */
async function withPeakRss<T>(fn: () => Promise<T>): Promise<{ value: T; growth: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, growth: peak - base };
  } finally {
    clearInterval(timer);
  }
}

function curl(args: string[]): number {
  const t = performance.now();
  const r = spawnSync(CURL, ['-sS', '-f', ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`curl failed with ${r.status}`);
  return performance.now() - t;
}

const mibs = (bytes: number, ms: number): number => bytes / 1024 / 1024 / (ms / 1000);

async function main(): Promise<void> {
  const sizeMiB = arg('--size-mib', 1024);
  const rounds = arg('--rounds', 3);
  const bytes = sizeMiB * 1024 * 1024;
  if (!existsSync(CURL)) throw new Error(`${CURL} is needed as the anchor`);
  mkdirSync(OUT, { recursive: true });
  const input = join(OUT, `transfer-${sizeMiB}MiB.bin`);
  const dlClient = join(OUT, 'transfer-download-client.bin');
  const dlCurl = join(OUT, 'transfer-download-curl.bin');
  const loadBefore = loadavg()[0] ?? 0;
  console.log(`making a ${sizeMiB} MiB input from ${FIXTURE.replace(/^.*\//, '')} ...`);
  makeInput(input, bytes);

  const { ServiceClient } = await import('../src-main/service/service-client.js');
  const { child, info } = await startServer();
  const client = new ServiceClient({ ...info, poll: { initialMs: 100, maxMs: 500 } });
  try {
    const job = await client.createJob({
      inputs: { cbct: { extension: '.zip' } },
      meshes: [{ extension: '.stl', structures: ['skull'] }],
    });
    const upload = job.uploads[0];
    if (!upload) throw new Error('no upload address');

    // Alternating order, best of each: neither side gets the warmer page cache for free.
    const up = { client: Infinity, curl: Infinity, rss: 0 };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? ['client', 'curl'] : ['curl', 'client'];
      for (const who of order) {
        if (who === 'client') {
          const t = performance.now();
          const { growth } = await withPeakRss(() => client.upload(upload.uploadUrl, input));
          up.client = Math.min(up.client, performance.now() - t);
          up.rss = Math.max(up.rss, growth);
        } else {
          up.curl = Math.min(
            up.curl,
            curl([
              '-T',
              input,
              '-H',
              'Content-Type: application/octet-stream',
              '-o',
              '/dev/null',
              upload.uploadUrl,
            ]),
          );
        }
      }
    }
    await client.notify(upload.notifyUrl);
    const result = await client.waitForResult(job.jobId);
    const mesh = result.outputFiles?.meshes?.[0];
    if (!mesh?.url || mesh.size !== bytes) throw new Error(`unexpected result: ${JSON.stringify(mesh)}`);

    const down = { client: Infinity, curl: Infinity, rss: 0 };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? ['client', 'curl'] : ['curl', 'client'];
      for (const who of order) {
        rmSync(who === 'client' ? dlClient : dlCurl, { force: true });
        if (who === 'client') {
          const t = performance.now();
          const { growth } = await withPeakRss(() =>
            client.download(mesh.url as string, dlClient, { expectedSize: bytes, onExists: 'overwrite' }),
          );
          down.client = Math.min(down.client, performance.now() - t);
          down.rss = Math.max(down.rss, growth);
        } else {
          down.curl = Math.min(down.curl, curl(['-o', dlCurl, mesh.url]));
        }
      }
    }
    if (statSync(dlClient).size !== bytes || statSync(dlCurl).size !== bytes)
      throw new Error('download sizes differ');

    const upRatio = up.curl / up.client;
    const downRatio = down.curl / down.client;
    const ratio = (up.curl + down.curl) / (up.client + down.client);
    const rssMiB = Math.max(up.rss, down.rss) / 1024 / 1024;
    console.log(
      `upload    client ${mibs(bytes, up.client).toFixed(0)} MiB/s   curl ${mibs(bytes, up.curl).toFixed(0)} MiB/s   ratio ${upRatio.toFixed(2)}`,
    );
    console.log(
      `download  client ${mibs(bytes, down.client).toFixed(0)} MiB/s   curl ${mibs(bytes, down.curl).toFixed(0)} MiB/s   ratio ${downRatio.toFixed(2)}`,
    );
    console.log(`overall ratio (client / curl throughput) ${ratio.toFixed(2)}  (goal >= 0.8)`);
    const loadAfter = loadavg()[0] ?? 0;
    console.log(
      `machine load average ${loadBefore.toFixed(1)} -> ${loadAfter.toFixed(1)} on ${cpus().length} cores` +
        (Math.max(loadBefore, loadAfter) > cpus().length ? ' (busy: throughputs are noisy)' : ''),
    );
    console.log(`client peak RSS growth ${rssMiB.toFixed(1)} MiB  (goal < 64 MiB)`);
    console.log(
      JSON.stringify({
        bench: 'transfer',
        bytes,
        rounds,
        uploadClientMs: Math.round(up.client),
        uploadCurlMs: Math.round(up.curl),
        downloadClientMs: Math.round(down.client),
        downloadCurlMs: Math.round(down.curl),
        uploadClientMiBs: +mibs(bytes, up.client).toFixed(1),
        uploadCurlMiBs: +mibs(bytes, up.curl).toFixed(1),
        downloadClientMiBs: +mibs(bytes, down.client).toFixed(1),
        downloadCurlMiBs: +mibs(bytes, down.curl).toFixed(1),
        uploadRatio: +upRatio.toFixed(3),
        downloadRatio: +downRatio.toFixed(3),
        ratio: +ratio.toFixed(3),
        peakRssGrowthMiB: +rssMiB.toFixed(1),
        uploadRssGrowthMiB: +(up.rss / 1024 / 1024).toFixed(1),
        downloadRssGrowthMiB: +(down.rss / 1024 / 1024).toFixed(1),
        loadAverage: [+loadBefore.toFixed(2), +loadAfter.toFixed(2)],
        goalsMet: ratio >= 0.8 && rssMiB < 64,
      }),
    );
  } finally {
    client.close();
    child.stdin?.end();
    await new Promise((r) => child.once('exit', r));
    for (const f of [input, dlClient, dlCurl]) rmSync(f, { force: true });
  }
}

if (process.argv.includes('--serve')) {
  await serve();
} else {
  await main();
}
