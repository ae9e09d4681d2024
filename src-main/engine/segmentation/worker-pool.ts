import { Worker, type Transferable } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { AppError } from '../../../src-shared/errors.js';
import { workerScript } from '../../platform/worker-entry.js';

/** Messages between a pool and its workers: a task in, exactly one reply out. */
export interface TaskRequest<T = unknown> {
  id: number;
  task: T;
}

/** A task's failure, as a worker tells it: an AppError's code and action, when it has them. */
export interface TaskError {
  message: string;
  code?: string;
  action?: string;
}

export type TaskReply<R = unknown> =
  { id: number; ok: true; result: R } | { id: number; ok: false; error: TaskError };

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

interface Slot {
  worker: Worker;
  busy: Pending & { id: number };
}

/**
 * A fixed number of worker threads that run tasks one at a time each, in the order given. Used for
 * the slab extraction, so that the two cores of a small machine both work on one surface.
 */
export class WorkerPool<T, R> {
  private readonly workers: Worker[] = [];
  private readonly idle: Worker[] = [];
  private readonly queue: { req: TaskRequest<T>; transfer: Transferable[]; pending: Pending }[] = [];
  private readonly running = new Map<Worker, Slot['busy']>();
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly script: string,
    readonly size: number,
  ) {
    for (let i = 0; i < size; i++) this.spawn();
  }

  private readonly online: Promise<void>[] = [];

  /** Resolves once every thread has started (a benchmark waits for it, so as not to time thread start-up). */
  async ready(): Promise<void> {
    await Promise.all(this.online);
  }

  private spawn(): void {
    // The scripts are self-contained bundles: no need for the parent's flags (e.g. a TypeScript loader).
    const w = new Worker(this.script, { execArgv: [] });
    this.online.push(new Promise<void>((resolve) => w.once('online', () => resolve())));
    w.on('message', (msg: TaskReply<R>) => {
      const busy = this.running.get(w);
      if (!busy || busy.id !== msg.id) return;
      this.running.delete(w);
      if (msg.ok) busy.resolve(msg.result);
      else {
        const code = (msg.error.code ?? 'internal') as ConstructorParameters<typeof AppError>[0];
        busy.reject(
          new AppError(code, msg.error.message, msg.error.action ? { action: msg.error.action } : {}),
        );
      }
      this.idle.push(w);
      this.pump();
    });
    const fail = (err: unknown): void => {
      const busy = this.running.get(w);
      this.running.delete(w);
      this.workers.splice(this.workers.indexOf(w), 1);
      const i = this.idle.indexOf(w);
      if (i >= 0) this.idle.splice(i, 1);
      if (busy) busy.reject(err instanceof Error ? err : new Error(String(err)));
      // A worker that died (out of memory, crash) is replaced, so the pool keeps its size.
      if (!this.closed) {
        this.spawn();
        this.pump();
      }
    };
    w.on('error', fail);
    w.on('exit', (code) => {
      if (this.workers.includes(w)) fail(new Error(`mesh worker stopped (exit code ${code})`));
    });
    this.workers.push(w);
    this.idle.push(w);
  }

  run(task: T, transfer: Transferable[] = []): Promise<R> {
    if (this.closed) return Promise.reject(new AppError('internal', 'The worker pool is closed.'));
    return new Promise<R>((resolve, reject) => {
      this.queue.push({
        req: { id: this.nextId++, task },
        transfer,
        pending: { resolve: resolve as (v: unknown) => void, reject },
      });
      this.pump();
    });
  }

  private pump(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const w = this.idle.pop() as Worker;
      const job = this.queue.shift();
      if (!job) break;
      this.running.set(w, { ...job.pending, id: job.req.id });
      w.postMessage(job.req, job.transfer);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const q of this.queue.splice(0))
      q.pending.reject(new AppError('canceled', 'The worker pool was closed.'));
    const all = this.workers.splice(0);
    for (const [, busy] of this.running) busy.reject(new AppError('canceled', 'The worker pool was closed.'));
    this.running.clear();
    await Promise.all(all.map((w) => w.terminate()));
  }
}

export const MESH_WORKER_ENTRY = 'engine/segmentation/mesh-worker.entry.ts';

/** Two threads on the two-core machines this runs on; never more than the cores there are. */
export function defaultWorkerCount(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

export async function meshWorkerScript(): Promise<string> {
  return workerScript(MESH_WORKER_ENTRY);
}
