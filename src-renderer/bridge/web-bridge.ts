import { buildApi, eventListeners } from '../../src-shared/channels';
import type { RendererBridge, ScanGrant } from '../../src-shared/contract';
import { AppError } from '../../src-shared/errors';
import { stageBatchHead } from '../../src-shared/stage-batch';
import { withAnswerBound } from './answer-bound';
import { invokeBoundMs, stageCopyBoundMs, stageLimitsBoundMs } from './answer-bounds';
import type { DroppedItem } from './dropped-item';
import { batchesOf, stagePaths, topOf, type ToStage } from './stage-batches';
import { streamWebEvents } from './web-events';
import { forgetWebSession, webFetch } from './web-session';

/** Batches of files copied to the app at once: enough to keep the loopback busy, few enough not to starve the calls. */
const STAGING_PARALLEL = 4;

export interface StagingProgress {
  files: number;
  filesDone: number;
  bytes: number;
  bytesDone: number;
}

interface StageLimits {
  maxFileBytes: number;
  maxDropBytes: number;
}

const GiB = 1024 ** 3;
const size = (n: number): string =>
  n >= GiB ? `${Number((n / GiB).toFixed(1))} GiB` : `${Number((n / 1024 ** 2).toFixed(1))} MiB`;

/** The server's caps, so that an oversized drop is refused at once instead of after gigabytes of copying. */
async function checkAgainstLimits(items: readonly DroppedItem[], total: number): Promise<void> {
  const res = await withAnswerBound(
    (signal) => webFetch('/api/stage', { signal }),
    stageLimitsBoundMs,
    'Checking the size of what you added',
  );
  // The server has the last word (413); without its limits the copy simply starts.
  if (!res.ok) return;
  const limits = (await res.json()) as StageLimits;
  const big = items.find((i) => i.file.size > limits.maxFileBytes);
  if (big)
    throw new AppError(
      'bad-input',
      `${big.relativePath || big.file.name} is ${size(big.file.size)}; web mode accepts files up to ${size(limits.maxFileBytes)} each.`,
      {
        action:
          'Use the desktop app for this scan, or start web mode with a higher SCAN2MESH_STAGE_MAX_FILE_MB.',
      },
    );
  if (total > limits.maxDropBytes)
    throw new AppError(
      'bad-input',
      `What you added is ${size(total)}; web mode accepts up to ${size(limits.maxDropBytes)} at a time.`,
      { action: 'Add fewer scans at a time, or start web mode with a higher SCAN2MESH_STAGE_MAX_DROP_MB.' },
    );
}

/**
 * A browser cannot hand the app a dropped file's path, so web mode copies each file to the loopback
 * server, which keeps folders as folders (one staging folder per drop) and answers with a grant for
 * each dropped file or top-level folder. The files go several to a request: a browser's cost per
 * request, not the bytes, made a drop of thousands of slices slow. Returns the grants, in the order
 * the user gave the items.
 */
export async function stageFiles(
  items: readonly DroppedItem[],
  onProgress?: (p: StagingProgress) => void,
): Promise<ScanGrant[]> {
  const drop = crypto.randomUUID();
  const grantOf = new Map<string, ScanGrant>();
  const progress: StagingProgress = {
    files: items.length,
    filesDone: 0,
    bytes: items.reduce((n, i) => n + i.file.size, 0),
    bytesDone: 0,
  };
  await checkAgainstLimits(items, progress.bytes);
  onProgress?.({ ...progress });
  const staged = stagePaths(items);
  const batches = batchesOf(staged);
  let next = 0;
  /**
   * The first failure in time (what went wrong, not a batch that timed out behind it later). Once a
   * batch fails the drop has failed: the others still waiting are not sent.
   */
  let failure: { reason: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (!failure && next < batches.length) {
      const batch = batches[next++] as ToStage[];
      const entries = batch.map((f) => ({ path: f.path, size: f.item.file.size }));
      const bytes = batch.reduce((n, f) => n + f.item.file.size, 0);
      const what =
        batch.length > 1
          ? `The copy of ${entries[0]?.path} and ${batch.length - 1} more`
          : `The copy of ${entries[0]?.path}`;
      const res = await withAnswerBound(
        (signal) =>
          webFetch(`/api/stage?drop=${drop}`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/octet-stream' },
            // The browser sends the files from where they are: the Blob only lists them.
            body: new Blob([stageBatchHead(entries), ...batch.map((f) => f.item.file)]),
            signal,
          }),
        stageCopyBoundMs(bytes, STAGING_PARALLEL),
        what,
      );
      // The app's words on what it would not keep (a name the disk refuses, a limit): said as they are.
      if (res.status === 400 || res.status === 413 || res.status === 507)
        throw new AppError('bad-input', await res.text());
      if (!res.ok) throw new Error(`${what} into the app failed: ${await res.text()}`);
      const { grants } = (await res.json()) as { grants: ScanGrant[] };
      entries.forEach((e, k) => {
        const grant = grants[k];
        if (grant && !grantOf.has(topOf(e.path))) grantOf.set(topOf(e.path), grant);
      });
      progress.filesDone += batch.length;
      progress.bytesDone += bytes;
      onProgress?.({ ...progress });
    }
  };
  const stopOnFailure = (): Promise<void> =>
    worker().catch((e: unknown) => {
      failure ??= { reason: e };
    });
  await Promise.all(Array.from({ length: Math.min(STAGING_PARALLEL, batches.length) }, stopOnFailure));
  if (failure) {
    // Nothing of a failed drop is read: the app removes what was copied now, not when web mode stops.
    await withAnswerBound(
      (signal) => webFetch(`/api/stage?drop=${drop}`, { method: 'DELETE', signal }),
      stageLimitsBoundMs,
      'Removing the copies of what you added',
    ).catch(() => undefined);
    throw failure.reason;
  }
  // Grants in the order the user gave the items, whatever order the copies finished in.
  const order = [...new Set(staged.map((f) => topOf(f.path)))];
  return order.map((top) => grantOf.get(top)).filter((g): g is ScanGrant => g !== undefined);
}

/**
 * The bridge in web mode: the same contract over fetch to the loopback server that served this page.
 * Every request carries the session token as a header (web-session.ts); the events come over fetch too.
 */
export function createWebBridge(): RendererBridge<DroppedItem> {
  const events = eventListeners();
  let connected = false;

  const connect = (): void => {
    if (connected) return;
    connected = true;
    streamWebEvents((data) => {
      const { event, payload } = JSON.parse(data) as { event: string; payload: unknown };
      events.emit(event, payload);
    });
  };

  return {
    transport: 'web',
    api: buildApi(async (channel, req) => {
      let res: Response;
      try {
        res = await withAnswerBound(
          (signal) =>
            webFetch(`/api/invoke/${channel}`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify(req),
              signal,
            }),
          invokeBoundMs(channel),
          'This request',
        );
      } catch (e) {
        // Unanswered (given up): say so. Failed to connect at all: the app is not there.
        if (e instanceof AppError) return { ok: false as const, error: e.toShape() };
        return {
          ok: false as const,
          error: {
            code: 'network' as const,
            message: 'The scan2mesh app is not answering.',
            action: 'Check that `scan2mesh web` is still running, then reload this page.',
          },
        };
      }
      if (res.status === 401) {
        forgetWebSession();
        return {
          ok: false as const,
          error: {
            code: 'auth-failed' as const,
            message: 'This browser tab is no longer connected to scan2mesh.',
            action: 'Open the address that `scan2mesh web` printed again.',
          },
        };
      }
      if (res.status === 413)
        return { ok: false as const, error: { code: 'bad-request' as const, message: await res.text() } };
      if (!res.ok)
        return {
          ok: false as const,
          error: {
            code: 'internal' as const,
            message: `The app refused the request (${res.status}): ${(await res.text()).slice(0, 200)}`,
          },
        };
      return res.json();
    }),
    on(event, listener) {
      const off = events.on(event, listener);
      connect();
      return off;
    },
    grantsForFiles: (items) => stageFiles(items),
  };
}
