import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { workerScript } from '../platform/worker-entry.js';
import type { ClassifyItem, Classified } from './classify-file.js';

/**
 * Work the pool's workers pull from: one drop being classified. The pool asks for the next chunk
 * whenever a worker is free, so a worker never sits on a queue of its own while others idle.
 */
export interface WorkSource {
  /** Indices of the next files for a worker, or undefined when there is nothing for workers now. */
  take(workers: number): number[] | undefined;
  items: readonly ClassifyItem[];
  /** What the drop's files read whole may cost together (drop-parse-budget.ts), shared with workers. */
  budget: Int32Array;
  /** Results for the indices taken. */
  done(indices: number[], results: Classified[]): void;
  /** The workers died or never started: these indices (taken, not done) come back. */
  lost(indices: number[], error: unknown): void;
  /** True when it holds files only a worker will read (its drop waits for a worker to start). */
  waiting(): boolean;
}

/** A chunk's results, or the worker saying it is up (its first message). */
type Reply = { id: number; results: Classified[] } | { ready: true };

/**
 * Header-scan worker threads, kept between drops; unreferenced while idle so they never keep the
 * process alive. Drops share the workers chunk by chunk in turn, so a small drop is not queued
 * behind a huge one.
 */
class HeaderScanPool {
  private all: Worker[] = [];
  private idle: Worker[] = [];
  private readonly starting = new Set<Worker>();
  private sources: WorkSource[] = [];
  private turn = 0;
  private nextId = 0;
  private alive = true;
  private readonly busy = new Map<Worker, { source: WorkSource; indices: number[] }>();
  readonly ready: Promise<void>;

  constructor(readonly size: number) {
    this.ready = workerScript('scans/header-scan.entry.ts').then((script) => {
      if (!this.alive) throw new Error('header workers stopped');
      for (let k = 0; k < size; k++) {
        const w = new Worker(script);
        w.on('message', (m: Reply) => this.answered(w, m));
        // A worker that dies takes the pool with it; the next drop starts a new one.
        w.on('error', (e) => this.died(e));
        w.on('exit', () => this.died(new Error('header worker exited')));
        // Only after the listeners: adding a 'message' listener refs the worker's port again, and a
        // worker no drop uses must not keep the process alive (web mode exits on SIGTERM only when
        // its loop empties). A drop waiting for it refs it (see dispatch).
        w.unref();
        this.all.push(w);
        this.starting.add(w);
      }
      this.dispatch();
    });
    this.ready.catch((e: unknown) => this.died(e));
  }

  /** Lets the workers pull from `source`: those up now, and the others once they are. */
  add(source: WorkSource): void {
    if (!this.alive) {
      source.lost([], new Error('header workers stopped'));
      return;
    }
    if (!this.sources.includes(source)) this.sources.push(source);
    this.dispatch();
  }

  remove(source: WorkSource): void {
    this.sources = this.sources.filter((s) => s !== source);
    this.dispatch();
  }

  /** Gives each idle worker the next chunk, taking the drops in turn. */
  dispatch(): void {
    while (this.alive && this.idle.length > 0 && this.sources.length > 0) {
      let given = false;
      for (let tried = 0; tried < this.sources.length && !given; tried++) {
        this.turn %= this.sources.length;
        const source = this.sources[this.turn++]!;
        const indices = source.take(this.all.length);
        if (!indices || indices.length === 0) continue;
        const w = this.idle.pop()!;
        this.busy.set(w, { source, indices });
        w.ref();
        w.postMessage({
          id: this.nextId++,
          items: indices.map((i) => source.items[i]!),
          budget: source.budget,
        });
        given = true;
      }
      if (!given) break;
    }
    // Starting workers keep the process alive only while a drop waits for one.
    const needed = this.alive && this.sources.some((s) => s.waiting());
    for (const w of this.starting) {
      if (needed) w.ref();
      else w.unref();
    }
  }

  private answered(w: Worker, m: Reply): void {
    if ('ready' in m) {
      // A worker gets files only once it is up: files given to a starting worker would wait for
      // its start while the calling thread could read them.
      this.starting.delete(w);
      w.unref();
      this.idle.push(w);
      this.dispatch();
      return;
    }
    const job = this.busy.get(w);
    this.busy.delete(w);
    w.unref();
    this.idle.push(w);
    if (job) job.source.done(job.indices, m.results);
    this.dispatch();
  }

  private died(e: unknown): void {
    if (!this.alive) return;
    this.alive = false;
    if (shared === this) shared = undefined;
    const jobs = [...this.busy.values()];
    const sources = this.sources;
    this.busy.clear();
    this.sources = [];
    this.idle = [];
    for (const w of this.all) void w.terminate();
    for (const j of jobs) j.source.lost(j.indices, e);
    for (const s of sources) if (!jobs.some((j) => j.source === s)) s.lost([], e);
  }
}

let shared: HeaderScanPool | undefined;

/** The pool, started on first use. At least two workers even on one core: one huge header must not hold up every other drop. */
export function headerScanPool(): HeaderScanPool {
  shared ??= new HeaderScanPool(Math.max(2, Math.min(4, availableParallelism())));
  return shared;
}

/** True when the pool's workers were started by an earlier drop (they may still be starting). */
export function headerScanPoolStarted(): boolean {
  return shared !== undefined;
}
