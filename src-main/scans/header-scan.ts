import { AppError } from '../../src-shared/errors.js';
import { newDropBudget, withDropBudget } from './drop-parse-budget.js';
import { classifyFile, classifyQuickly, type ClassifyItem, type Classified } from './classify-file.js';
import { headerScanPool, headerScanPoolStarted, type WorkSource } from './header-scan-pool.js';

/** The most of one file this thread reads; a longer header (or one for dicom-parser) is a worker's. */
const QUICK_BYTES = 256 * 1024;
/** This thread reads headers for about this long at a time, then lets other calls run. */
const SLICE_MS = 5;
/**
 * Workers are started for a drop when this thread still has more than this much reading ahead:
 * about what starting them costs, so a small drop never waits for (or pays) their start.
 */
const WORKERS_WORTH_MS = 40;
/**
 * ... and at least this many files are still to read: below it this thread is done in tens of
 * milliseconds on any machine, and on a busy one (where the pace looks slow) workers only add load.
 */
const WORKERS_MIN_FILES = 1000;
/** Files per message to a worker: large enough to amortise the message, small enough to share out. */
const CHUNK = 32;
const YIELD_EVERY = 16;

/**
 * Classifies files by reading their headers. Results keep the order of `items`.
 *
 * This thread reads every header it can with bounded work (the tag-only reader on at most 256 KB of
 * a file), in slices of a few milliseconds between which other calls run: for the drops users make,
 * that is done before a worker thread could even start. Worker threads take whatever needs more (a
 * header of hundreds of megabytes, or one only dicom-parser reads), and share the rest of a large
 * drop once they are up. Only when no worker can start does this thread read those in full.
 * `workers: false` reads everything here, yielding between files.
 */
export async function classifyMany(
  items: ClassifyItem[],
  opts: { signal?: AbortSignal | undefined; workers?: boolean; budget?: Int32Array } = {},
): Promise<Classified[]> {
  if (items.length === 0) return [];
  const budget = opts.budget ?? newDropBudget();
  if (opts.workers === false) return classifyHere(items, budget, opts.signal);
  return new Drop(items, budget, opts.signal).run();
}

async function classifyHere(
  items: ClassifyItem[],
  budget: Int32Array,
  signal?: AbortSignal,
): Promise<Classified[]> {
  const out: Classified[] = [];
  for (let i = 0; i < items.length; i++) {
    if (signal?.aborted) throw canceled();
    out.push(withDropBudget(budget, () => classifyFile(items[i]!)));
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await turn();
  }
  return out;
}

const canceled = (): AppError => new AppError('canceled', 'Looking at the scan was canceled.');
const turn = (): Promise<void> => new Promise<void>((r) => setImmediate(r));

/** One drop being classified, by this thread and (when worth it) the pool's workers together. */
class Drop implements WorkSource {
  private readonly out: Classified[];
  private left: number;
  /** The next file no one has taken yet. */
  private next = 0;
  /** Files this thread left for a worker. */
  private deferred: number[] = [];
  /** Files no worker will read (the workers died or could not start): read here, in full. */
  private orphans: number[] = [];
  private pool: ReturnType<typeof headerScanPool> | undefined;
  private workersGone = false;
  private wake: (() => void) | undefined;

  constructor(
    readonly items: ClassifyItem[],
    /** What its files read whole may cost together, on every thread (drop-parse-budget.ts). */
    readonly budget: Int32Array,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.out = new Array<Classified>(items.length);
    this.left = items.length;
  }

  async run(): Promise<Classified[]> {
    const n = this.items.length;
    const onAbort = (): void => this.wake?.();
    this.signal?.addEventListener('abort', onAbort, { once: true });
    // Workers already running from an earlier drop share this one from the start.
    if (headerScanPoolStarted()) this.useWorkers();
    try {
      let sliceStart = performance.now();
      let sliceCpu = process.cpuUsage();
      let sliceFiles = 0;
      // The first slice also compiles the reading code: too slow a pace to judge the rest by.
      let firstSlice = true;
      for (;;) {
        if (this.signal?.aborted) throw canceled();
        if (this.left === 0) return this.out;
        if (this.orphans.length > 0) {
          const i = this.orphans.shift()!;
          this.settle(
            i,
            withDropBudget(this.budget, () => classifyFile(this.items[i]!)),
          );
        } else if (this.next < n) {
          const i = this.next++;
          const r = classifyQuickly(this.items[i]!, QUICK_BYTES);
          if (r) this.settle(i, r);
          else {
            this.deferred.push(i);
            this.useWorkers();
          }
        } else {
          // Only the workers' share is left: wait for it without holding the thread.
          await new Promise<void>((resolve) => (this.wake = resolve));
          this.wake = undefined;
          continue;
        }
        sliceFiles++;
        const now = performance.now();
        if (now - sliceStart >= SLICE_MS) {
          // The pace in CPU time, not wall time: on a busy machine the wall clock counts other
          // programs' turns too, and would start workers that only add to the crowd.
          const cpu = process.cpuUsage(sliceCpu);
          const ahead = ((n - this.next) * (cpu.user + cpu.system)) / 1000 / sliceFiles;
          if (!firstSlice && ahead > WORKERS_WORTH_MS && n - this.next > WORKERS_MIN_FILES) this.useWorkers();
          await turn();
          sliceStart = performance.now();
          sliceCpu = process.cpuUsage();
          sliceFiles = 0;
          firstSlice = false;
        }
      }
    } finally {
      this.signal?.removeEventListener('abort', onAbort);
      this.pool?.remove(this);
    }
  }

  private useWorkers(): void {
    if (this.workersGone) return;
    if (this.pool) {
      this.pool.dispatch();
      return;
    }
    this.pool = headerScanPool();
    this.pool.add(this);
  }

  private settle(i: number, r: Classified): void {
    this.out[i] = r;
    this.left--;
  }

  take(workers: number): number[] | undefined {
    if (this.signal?.aborted) return undefined;
    if (this.deferred.length > 0) return this.deferred.splice(0, CHUNK);
    // Of what nobody has taken, a share for this worker; the last few files are this thread's.
    const remaining = this.items.length - this.next;
    const share = Math.min(CHUNK, Math.floor(remaining / (2 * (workers + 1))));
    if (share < 2) return undefined;
    const from = this.next;
    this.next += share;
    return Array.from({ length: share }, (_, k) => from + k);
  }

  waiting(): boolean {
    return this.deferred.length > 0 && !this.signal?.aborted;
  }

  done(indices: number[], results: Classified[]): void {
    for (let k = 0; k < indices.length; k++) this.settle(indices[k]!, results[k]!);
    this.wake?.();
  }

  lost(indices: number[]): void {
    this.workersGone = true;
    this.orphans.push(...indices, ...this.deferred.splice(0));
    this.wake?.();
  }
}
