import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { AppError } from '../../src-shared/errors.js';
import { workerScript } from '../platform/worker-entry.js';
import { classifyFile, type ClassifyItem, type Classified } from './classify-file.js';

/** Below this many files a worker's start-up costs more than it saves. */
const POOL_THRESHOLD = 300;
const CHUNK = 50;
const YIELD_EVERY = 16;

/**
 * Classifies many files, reading their headers. Large drops are spread over worker threads (one
 * per core, at most four), which keeps the app's main thread free and uses the cores; small ones
 * are read here, yielding to the event loop every few files. Results keep the order of `items`.
 */
export async function classifyMany(
  items: ClassifyItem[],
  opts: { signal?: AbortSignal | undefined; workers?: boolean } = {},
): Promise<Classified[]> {
  const { signal } = opts;
  const threads = Math.min(4, availableParallelism());
  if (opts.workers !== false && items.length >= POOL_THRESHOLD && threads > 1) {
    try {
      return await pool(threads).run(items, signal);
    } catch (e) {
      if (e instanceof AppError) throw e;
      // A worker could not start or died: read the headers here instead.
    }
  }
  return classifyHere(items, signal);
}

async function classifyHere(items: ClassifyItem[], signal?: AbortSignal): Promise<Classified[]> {
  const out: Classified[] = [];
  for (let i = 0; i < items.length; i++) {
    if (signal?.aborted) throw canceled();
    out.push(classifyFile(items[i]!));
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await new Promise<void>((r) => setImmediate(r));
  }
  return out;
}

function canceled(): AppError {
  return new AppError('canceled', 'Looking at the scan was canceled.');
}

interface Reply {
  id: number;
  results: Classified[];
}

/** Worker threads kept between drops; unreferenced while idle so they never keep the process alive. */
class HeaderScanPool {
  private workers: Promise<Worker[]> | undefined;
  private nextId = 0;

  constructor(private readonly size: number) {}

  private start(): Promise<Worker[]> {
    this.workers ??= workerScript('scans/header-scan.entry.ts').then((script) =>
      Array.from({ length: this.size }, () => {
        const w = new Worker(script);
        w.unref();
        // A worker that dies is dropped with the whole pool; the next drop starts a new one.
        w.on('error', () => (this.workers = undefined));
        w.on('exit', () => (this.workers = undefined));
        return w;
      }),
    );
    return this.workers;
  }

  async run(items: ClassifyItem[], signal?: AbortSignal): Promise<Classified[]> {
    const workers = await this.start();
    const out = new Array<Classified>(items.length);
    let next = 0;
    const drive = async (w: Worker): Promise<void> => {
      w.ref();
      try {
        while (next < items.length) {
          if (signal?.aborted) throw canceled();
          const from = next;
          next += CHUNK;
          const chunk = items.slice(from, from + CHUNK);
          const results = await this.ask(w, chunk);
          for (let k = 0; k < results.length; k++) out[from + k] = results[k]!;
        }
      } finally {
        w.unref();
      }
    };
    await Promise.all(workers.map(drive));
    return out;
  }

  private ask(w: Worker, items: ClassifyItem[]): Promise<Classified[]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onMessage = (m: Reply): void => {
        if (m.id !== id) return;
        cleanup();
        resolve(m.results);
      };
      const onError = (e: Error): void => {
        cleanup();
        reject(e);
      };
      const onExit = (): void => {
        cleanup();
        reject(new Error('header worker exited'));
      };
      const cleanup = (): void => {
        w.off('message', onMessage);
        w.off('error', onError);
        w.off('exit', onExit);
      };
      w.on('message', onMessage);
      w.on('error', onError);
      w.on('exit', onExit);
      w.postMessage({ id, items });
    });
  }
}

let shared: HeaderScanPool | undefined;

function pool(size: number): HeaderScanPool {
  shared ??= new HeaderScanPool(size);
  return shared;
}
