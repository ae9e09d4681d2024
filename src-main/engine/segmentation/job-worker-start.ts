import { Worker } from 'node:worker_threads';
import { workerScript } from '../../platform/worker-entry.js';
import type { JobWorkerData } from './job-protocol.js';
import { defaultWorkerCount, MESH_WORKER_ENTRY } from './worker-pool.js';

const JOB_WORKER_ENTRY = 'engine/segmentation/job-worker.entry.ts';

/** Job workers that have stopped: one started ahead of its job may die before the job comes. */
const exited = new WeakSet<Worker>();

export const hasExited = (worker: Worker): boolean => exited.has(worker);

/**
 * Starts a job worker (job-worker.entry.ts), which starts its `workers` mesh workers at once and warms
 * up their simplifier.
 */
export async function startJobWorker(workers: number): Promise<Worker> {
  const [jobScript, meshWorkerScript] = await Promise.all([
    workerScript(JOB_WORKER_ENTRY),
    workerScript(MESH_WORKER_ENTRY),
  ]);
  const workerData: JobWorkerData = { workers, meshWorkerScript };
  // A self-contained bundle: no need for the parent's flags (e.g. a TypeScript loader in tests).
  const worker = new Worker(jobScript, { execArgv: [], workerData });
  worker.once('exit', () => exited.add(worker));
  // An error ends the worker ('exit' follows); a job that takes it then hears of it from 'exit'.
  worker.on('error', () => {});
  return worker;
}

let early: { workers: number; worker: Promise<Worker> } | undefined;

/**
 * Starts a job worker before the local engine exists, for a command that is about to give it a job
 * (`scan2mesh submit` without connection options). The command then spends a few hundred
 * milliseconds on one core loading its code, opening the queue and reading the scan; the worker's
 * start-up and its mesh workers' warm-up take the other core meanwhile, instead of competing with
 * the packing and upload later. The engine's processor takes it (takeEarlyJobWorker). It does not
 * keep the process alive: a command that ends before its engine starts simply ends.
 */
export function startJobWorkerEarly(workers = defaultWorkerCount()): void {
  if (early) return;
  const worker = startJobWorker(workers);
  worker.then(
    (w) => w.unref(),
    () => {},
  );
  early = { workers, worker };
}

/** The worker startJobWorkerEarly started, if it was started for `workers` mesh workers (once). */
export function takeEarlyJobWorker(workers: number): Promise<Worker> | undefined {
  if (early?.workers !== workers) return undefined;
  const { worker } = early;
  early = undefined;
  return worker;
}
