import { buildApi, eventListeners } from '../../src-shared/channels';
import type { RendererBridge, ScanGrant } from '../../src-shared/contract';
import { AppError } from '../../src-shared/errors';
import { withAnswerBound } from './answer-bound';
import { invokeBoundMs, stageCopyBoundMs, stageLimitsBoundMs } from './answer-bounds';
import type { DroppedItem } from './dropped-item';
import { streamWebEvents } from './web-events';
import { forgetWebSession, webFetch } from './web-session';

/** Files copied to the app at once: enough to keep the loopback busy, few enough not to starve the calls. */
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
 * each dropped file or top-level folder. Returns those grants, in the order the user gave the items.
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
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as DroppedItem;
      const rel = item.relativePath || item.file.name;
      const res = await withAnswerBound(
        (signal) =>
          webFetch(`/api/stage?drop=${drop}&path=${encodeURIComponent(rel)}`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/octet-stream' },
            body: item.file,
            signal,
          }),
        stageCopyBoundMs(item.file.size, STAGING_PARALLEL),
        `The copy of ${rel}`,
      );
      if (res.status === 413 || res.status === 507) throw new AppError('bad-input', await res.text());
      if (!res.ok) throw new Error(`Could not copy ${rel} into the app: ${await res.text()}`);
      const { grant } = (await res.json()) as { grant: ScanGrant };
      const top = rel.split('/')[0] ?? rel;
      if (!grantOf.has(top)) grantOf.set(top, grant);
      progress.filesDone++;
      progress.bytesDone += item.file.size;
      onProgress?.({ ...progress });
    }
  };
  await Promise.all(Array.from({ length: Math.min(STAGING_PARALLEL, items.length) }, worker));
  // Grants in the order the user gave the items, whatever order the copies finished in.
  const order = [...new Set(items.map((i) => (i.relativePath || i.file.name).split('/')[0] ?? ''))];
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
