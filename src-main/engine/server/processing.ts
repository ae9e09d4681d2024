import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { AppError } from '../../../src-shared/errors.js';
import { shortStage } from '../../../src-shared/stage-text.js';
import type { Logger } from '../../logging/logger.js';
import { loggableError } from '../../logging/redact.js';
import type { Processor } from '../processor.js';
import { fetchToFile, putFile } from './client-storage.js';
import type { EngineJob, JobStore } from './job-store.js';

interface ProcessingDeps {
  store: JobStore;
  processor: Processor;
  logger: Logger;
  /** A job stays in processing at least this long (tests use it to see 202 answers). */
  minProcessingMs: number;
  /** Jobs processed at the same time; segmentation is CPU-bound, so more only slows each down. */
  concurrency: number;
  onFinished: (job: EngineJob) => void;
}

/**
 * The engine side of §3: a job moves to processing only when every input is transferred and notified,
 * waits its turn, and ends finished or failed. Processing is awaited, never run on the server's own
 * event loop: the real processor works in worker threads.
 */
export class JobProcessing {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly queue: EngineJob[] = [];
  /** Held polls, by job: woken when the job moves to another stage, finishes or fails. */
  private readonly waiters = new Map<string, Set<() => void>>();
  private active = 0;
  private closed = false;

  constructor(private readonly deps: ProcessingDeps) {}

  /** Fetches inputs that come from client-hosted download addresses, in the background. */
  fetchRemoteInputs(job: EngineJob): void {
    for (const input of job.inputs) {
      if (!input.downloadUrl || input.uploaded) continue;
      const url = input.downloadUrl;
      fetchToFile(url, input.path).then(
        async () => {
          input.uploaded = true;
          input.notified = true;
          await this.deps.store.save(job);
          await this.maybeStart(job);
        },
        async (e: unknown) => {
          if (job.state !== 'awaiting-input') return;
          await this.fail(
            job,
            `The input "${input.name}" could not be fetched from its download address: ${String((e as Error).message)}`,
          );
        },
      );
    }
  }

  /** Starts the job when it is complete (§3); otherwise nothing happens. */
  async maybeStart(job: EngineJob): Promise<void> {
    if (job.state !== 'awaiting-input' || !job.inputs.every((i) => i.uploaded && i.notified)) return;
    job.state = 'processing';
    job.progress = { fraction: 0, stage: 'queued' };
    await this.deps.store.save(job);
    this.enqueue(job);
  }

  /** For a job that was processing when the engine last stopped. */
  resume(job: EngineJob): void {
    if (job.state === 'processing') this.enqueue(job);
    else if (job.state === 'awaiting-input') this.fetchRemoteInputs(job);
  }

  /**
   * Resolves when the job moves to another stage, finishes or fails, or after `ms`, whichever comes
   * first: a poll held this long learns of the end the moment it comes instead of at its next turn,
   * and a progress display still sees each stage as it starts.
   */
  changedOrAfter(jobId: string, ms: number): Promise<void> {
    if (ms <= 0 || this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const waiting = this.waiters.get(jobId) ?? new Set<() => void>();
      this.waiters.set(jobId, waiting);
      const wake = (): void => {
        clearTimeout(timer);
        waiting.delete(wake);
        if (waiting.size === 0) this.waiters.delete(jobId);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      waiting.add(wake);
    });
  }

  private changed(jobId: string): void {
    for (const wake of [...(this.waiters.get(jobId) ?? [])]) wake();
  }

  /** A job is likely soon: the processor may get ready for it (processor.ts). */
  prepare(): void {
    if (!this.closed) this.deps.processor.prepare?.();
  }

  /**
   * Stops the job wherever it stands (waiting its turn, or processing: the processor is aborted and
   * awaited), so that nothing more is written for it. Its held polls are answered (it is gone).
   */
  async stop(jobId: string): Promise<void> {
    const queued = this.queue.findIndex((j) => j.id === jobId);
    if (queued >= 0) this.queue.splice(queued, 1);
    const running = this.running.get(jobId);
    if (running) {
      running.abort.abort();
      await running.done;
    }
    this.changed(jobId);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const id of [...this.waiters.keys()]) this.changed(id);
    this.queue.length = 0;
    for (const r of this.running.values()) r.abort.abort();
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
    await this.deps.processor.dispose?.();
  }

  private enqueue(job: EngineJob): void {
    this.queue.push(job);
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.active < this.deps.concurrency && this.queue.length > 0) {
      const job = this.queue.shift() as EngineJob;
      const abort = new AbortController();
      this.active++;
      const done = this.process(job, abort.signal).finally(() => {
        this.active--;
        this.running.delete(job.id);
        this.pump();
      });
      this.running.set(job.id, { abort, done });
    }
  }

  private async process(job: EngineJob, signal: AbortSignal): Promise<void> {
    const { store, processor, logger } = this.deps;
    const started = Date.now();
    job.progress = { fraction: 0, stage: 'starting' };
    try {
      const result = await processor.process(
        {
          jobId: job.id,
          inputs: job.inputs.map((i) => ({ name: i.name, extension: i.extension, path: i.path })),
          meshes: job.meshes.map((m) => ({ extension: m.extension, structures: m.structures })),
          options: job.options,
          workDir: join(store.jobDir(job.id), 'work'),
        },
        (p) => {
          const stage = job.progress.stage;
          // Within what a client shows: a longer stage would be dropped there, and the user see none.
          job.progress = { fraction: Math.min(1, Math.max(0, p.fraction)), stage: shortStage(p.stage) };
          // A stage at 100 % is the end, which answers held polls itself a moment later.
          if (job.progress.stage !== stage && p.fraction < 1) this.changed(job.id);
        },
        signal,
      );
      if (result.meshes.length !== job.meshes.length)
        throw new Error(
          `the processor made ${result.meshes.length} meshes for ${job.meshes.length} requested`,
        );
      const rest = this.deps.minProcessingMs - (Date.now() - started);
      if (rest > 0) await delay(rest, undefined, { signal });
      for (const [i, made] of result.meshes.entries()) {
        const mesh = job.meshes[i];
        if (!mesh) continue;
        if (made.refused !== undefined) {
          mesh.refused = made.refused;
          continue;
        }
        mesh.path = made.path;
        mesh.size = (await stat(made.path)).size;
        if (made.note !== undefined) mesh.note = made.note;
        if (made.triangles !== undefined) mesh.triangles = made.triangles;
        if (mesh.uploadUrl) await putFile(mesh.uploadUrl, made.path);
      }
      // Before the job is told finished: a client that sees it finished never finds its scan kept.
      await store.dropScanCopies(job);
      job.state = 'finished';
      job.progress = { fraction: 1, stage: 'done' };
      job.finishedAt = Date.now();
      await store.save(job);
      logger.info('engine job finished', { jobId: job.id, ms: Date.now() - started });
      this.changed(job.id);
      this.deps.onFinished(job);
    } catch (e) {
      // Closing: the job stays 'processing' on disk and is resumed by the next engine on this folder.
      if (signal.aborted) return;
      // The reason and, where the refusal has one, what to do: the interface's job carries one text.
      const action = e instanceof AppError && e.action ? ` ${e.action}` : '';
      const code = e instanceof AppError ? e.code : undefined;
      await this.fail(job, `${e instanceof Error ? e.message : String(e)}${action}`, code);
    }
  }

  /** `code` is the AppError's: a refusal of the scan names its files, so only its code is logged. */
  private async fail(job: EngineJob, message: string, code?: string): Promise<void> {
    await this.deps.store.dropScanCopies(job).catch((e: unknown) => {
      this.deps.logger.warn('scan copy of a failed job not removed', { jobId: job.id, error: String(e) });
    });
    job.state = 'failed';
    job.error = message;
    job.finishedAt = Date.now();
    await this.deps.store.save(job).catch(() => {});
    // The client shows the message to the user (job.error); the log must not carry a file name.
    this.deps.logger.warn('engine job failed', {
      jobId: job.id,
      code: code ?? 'none',
      error: loggableError({ code: code ?? 'none', message }),
    });
    this.changed(job.id);
    this.deps.onFinished(job);
  }
}
