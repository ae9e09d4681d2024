import { join } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import { meshFileName, type JobSpec, type PollResult } from '../../src-shared/job-spec.js';
import { DEFAULT_POLL, pollInterval, sleep, withJitter, type PollPolicy } from './retry.js';
import { PresignedRefusedError, type PollState, type ServiceClient } from './service-client.js';
import { matchResults } from './result-match.js';

/**
 * FOR TESTS AND BENCHMARKS ONLY: one job from start to end on a ServiceClient, without the queue. The
 * app runs jobs through src-main/jobs (persisted between steps); this is the short way for tests of
 * the client and for the anchor of the jobs benchmark.
 */

export type RunStage = 'creating' | 'uploading' | 'notifying' | 'processing' | 'downloading' | 'done';

export interface RunJobHooks {
  signal?: AbortSignal;
  onStage?: (stage: RunStage, info: { jobId?: string; input?: string }) => void;
  onUploadProgress?: (input: string, sent: number, total: number | undefined) => void;
  onPoll?: (state: PollState) => void;
  onDownloadProgress?: (meshIndex: number, received: number, total: number | undefined) => void;
  /** Poll spacing; default the interface's (about 2 s backing off to 30 s). */
  poll?: Partial<PollPolicy>;
}

export interface JobOutput {
  structures: string[];
  extension: string;
  /** Where the mesh was saved; absent when the service delivered it to a client-hosted uploadUrl. */
  path?: string;
  bytes?: number;
  deliveredToUploadUrl?: boolean;
  /** What the engine said about this mesh, when it said anything. */
  note?: string;
}

export interface RunJobResult {
  jobId: string;
  outputs: JobOutput[];
  result: PollResult;
}

/**
 * One job from start to end, without the queue: what the contract tests drive the service client
 * with. Meshes are saved as `<outDir>/<structures joined by +><ext>`, replacing a file of that name.
 */
export async function runJob(
  client: ServiceClient,
  spec: JobSpec,
  inputFiles: Record<string, string>,
  outDir: string,
  hooks: RunJobHooks = {},
): Promise<RunJobResult> {
  const { signal } = hooks;
  for (const [name, input] of Object.entries(spec.inputs)) {
    if (!input.downloadUrl && !inputFiles[name])
      throw new AppError('bad-input', `No file was given for the input "${name}".`, {
        action: 'Give a file for every input that is not fetched from a download address.',
      });
  }
  hooks.onStage?.('creating', {});
  const job = await client.createJob(spec, signal);
  const { jobId } = job;
  for (const { input, uploadUrl, notifyUrl } of job.uploads) {
    const file = inputFiles[input];
    if (!file) throw new AppError('internal', `Job ${jobId} asks for an input "${input}" that has no file.`);
    hooks.onStage?.('uploading', { jobId, input });
    await client.upload(uploadUrl, file, {
      signal,
      onProgress: (sent, total) => hooks.onUploadProgress?.(input, sent, total),
    });
    hooks.onStage?.('notifying', { jobId, input });
    await client.notify(notifyUrl, signal);
  }
  hooks.onStage?.('processing', { jobId });
  const pollOpts: WaitOptions = signal ? { signal } : {};
  if (hooks.onPoll) pollOpts.onPoll = hooks.onPoll;
  if (hooks.poll) pollOpts.poll = hooks.poll;
  let result = await waitForResult(client, jobId, pollOpts);

  hooks.onStage?.('downloading', { jobId });
  const outputs: JobOutput[] = [];
  const matched = matchResults(spec.meshes, result.outputFiles?.meshes ?? []);
  for (const [i, wanted] of spec.meshes.entries()) {
    const output: JobOutput = { structures: wanted.structures, extension: wanted.extension };
    const record = matched[i];
    if (record?.note) output.note = record.note;
    if (wanted.uploadUrl) {
      output.deliveredToUploadUrl = true;
      if (record?.size !== undefined) output.bytes = record.size;
      outputs.push(output);
      continue;
    }
    if (!record?.url)
      throw new AppError(
        'service',
        `Job ${jobId} finished without a download address for ${wanted.structures.join('+')}${wanted.extension}.`,
        { action: 'Report it to the service operator.' },
      );
    const dest = join(outDir, meshFileName(wanted.structures, wanted.extension));
    const download = (url: string, size: number | undefined) =>
      client.download(url, dest, {
        ...(size !== undefined ? { expectedSize: size } : {}),
        ...(signal ? { signal } : {}),
        onProgress: (got, total) => hooks.onDownloadProgress?.(i, got, total),
      });
    let saved: { path: string; bytes: number };
    try {
      saved = await download(record.url, record.size);
    } catch (e) {
      if (!(e instanceof PresignedRefusedError)) throw e;
      // Download addresses expire; a fresh poll hands out new ones.
      result = await waitForResult(client, jobId, pollOpts);
      const fresh = matchResults(spec.meshes, result.outputFiles?.meshes ?? [])[i];
      if (!fresh?.url) throw e;
      saved = await download(fresh.url, fresh.size);
    }
    output.path = saved.path;
    output.bytes = saved.bytes;
    outputs.push(output);
  }
  hooks.onStage?.('done', { jobId });
  return { jobId, outputs, result };
}

export interface WaitOptions {
  onPoll?: (s: PollState) => void;
  signal?: AbortSignal;
  poll?: Partial<PollPolicy>;
}

/** A Retry-After on a running job is honoured up to this, so that a test never sleeps for a day. */
const MAX_POLL_WAIT_MS = 10 * 60_000;

/** Polls until the job finishes: Retry-After first, else the poll policy with jitter. */
export async function waitForResult(
  client: ServiceClient,
  jobId: string,
  opts: WaitOptions = {},
): Promise<PollResult> {
  const policy = { ...DEFAULT_POLL, ...opts.poll };
  for (let n = 0; ; n++) {
    const s = await client.pollOnce(jobId, opts.signal);
    opts.onPoll?.(s);
    if (s.state === 'finished') return s.result;
    const wait =
      s.retryAfterMs !== undefined
        ? Math.min(s.retryAfterMs, MAX_POLL_WAIT_MS)
        : withJitter(pollInterval(policy, n), policy.jitter);
    await sleep(wait, opts.signal);
  }
}
