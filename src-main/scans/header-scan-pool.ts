import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { AppError } from '../../src-shared/errors.js';
import { workerScript } from '../platform/worker-entry.js';
import { classifyFile, type ClassifyItem, type Classified } from './classify-file.js';

/** Files per message to a worker: large enough to amortise the message, small enough to share out. */
const CHUNK = 50;
const YIELD_EVERY = 16;

/**
 * Classifies files by reading their headers, on worker threads: however few files a drop has, one
 * of them may carry a header of hundreds of megabytes, and parsing it here would stall every other
 * call the app's main thread serves. Only when no worker can start are the headers read here,
 * yielding to the event loop between files. Results keep the order of `items`.
 */
export async function classifyMany(
  items: ClassifyItem[],
  opts: { signal?: AbortSignal | undefined; workers?: boolean } = {},
): Promise<Classified[]> {
  const { signal } = opts;
  if (items.length === 0) return [];
  if (opts.workers !== false) {
    try {
      return await pool().run(items, signal);
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

/** One drop being classified: its chunks not yet sent, and how many are still out. */
interface Run {
  items: ClassifyItem[];
  chunk: number;
  out: Classified[];
  pending: number[];
  outstanding: number;
  resolve: (r: Classified[]) => void;
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
  done: boolean;
}

/**
 * Worker threads kept between drops; unreferenced while idle so they never keep the process alive.
 * Drops share the workers chunk by chunk in turn, so a small drop is not queued behind a huge one.
 */
class HeaderScanPool {
  private workers: Promise<Worker[]> | undefined;
  private all: Worker[] = [];
  private idle: Worker[] = [];
  private runs: Run[] = [];
  private turn = 0;
  private nextId = 0;
  private readonly busy = new Map<Worker, { run: Run; from: number }>();

  constructor(private readonly size: number) {}

  private start(): Promise<Worker[]> {
    this.workers ??= workerScript('scans/header-scan.entry.ts').then((script) => {
      const all = Array.from({ length: this.size }, () => {
        const w = new Worker(script);
        w.on('message', (m: Reply) => this.answered(w, m));
        // A worker that dies takes the pool with it; the next drop starts a new one.
        w.on('error', (e) => this.died(e));
        w.on('exit', () => this.died(new Error('header worker exited')));
        // Only after the listeners: adding a 'message' listener refs the worker's port again, and a
        // worker no drop ever used would then keep the process alive after SIGTERM.
        w.unref();
        return w;
      });
      this.all = all;
      this.idle = [...all];
      return all;
    });
    return this.workers;
  }

  async run(items: ClassifyItem[], signal?: AbortSignal): Promise<Classified[]> {
    await this.start();
    if (signal?.aborted) throw canceled();
    return new Promise<Classified[]>((resolve, reject) => {
      // Small drops are cut finer, so that every worker gets a share.
      const chunk = Math.max(1, Math.min(CHUNK, Math.ceil(items.length / this.size)));
      const pending: number[] = [];
      for (let from = 0; from < items.length; from += chunk) pending.push(from);
      const run: Run = {
        items,
        chunk,
        out: new Array<Classified>(items.length),
        pending,
        outstanding: 0,
        resolve,
        reject,
        signal,
        done: false,
      };
      const onAbort = (): void => this.finish(run, canceled());
      signal?.addEventListener('abort', onAbort, { once: true });
      run.resolve = (r) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(r);
      };
      this.runs.push(run);
      this.dispatch();
    });
  }

  /** Gives each idle worker the next chunk, taking the drops in turn. */
  private dispatch(): void {
    while (this.idle.length > 0 && this.runs.length > 0) {
      this.turn %= this.runs.length;
      const run = this.runs[this.turn]!;
      const from = run.pending.shift();
      if (from === undefined) {
        this.runs.splice(this.turn, 1);
        continue;
      }
      this.turn++;
      const w = this.idle.pop()!;
      run.outstanding++;
      this.busy.set(w, { run, from });
      w.ref();
      w.postMessage({ id: this.nextId++, items: run.items.slice(from, from + run.chunk) });
    }
  }

  private answered(w: Worker, m: Reply): void {
    const job = this.busy.get(w);
    this.busy.delete(w);
    w.unref();
    this.idle.push(w);
    if (job && !job.run.done) {
      const { run, from } = job;
      for (let k = 0; k < m.results.length; k++) run.out[from + k] = m.results[k]!;
      run.outstanding--;
      if (run.pending.length === 0 && run.outstanding === 0) this.finish(run);
    }
    this.dispatch();
  }

  private finish(run: Run, error?: unknown): void {
    if (run.done) return;
    run.done = true;
    this.runs = this.runs.filter((r) => r !== run);
    if (error) run.reject(error);
    else run.resolve(run.out);
  }

  private died(e: unknown): void {
    if (this.workers === undefined) return;
    this.workers = undefined;
    const runs = [...new Set([...this.runs, ...[...this.busy.values()].map((b) => b.run)])];
    this.runs = [];
    this.busy.clear();
    this.idle = [];
    if (shared === this) shared = undefined;
    for (const w of this.all) void w.terminate();
    for (const r of runs) this.finish(r, e);
  }
}

let shared: HeaderScanPool | undefined;

/** At least two workers even on one core: one huge header must not hold up every other drop. */
function pool(): HeaderScanPool {
  shared ??= new HeaderScanPool(Math.max(2, Math.min(4, availableParallelism())));
  return shared;
}
