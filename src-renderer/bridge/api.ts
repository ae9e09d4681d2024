import { buildApi, callerOf } from '../../src-shared/channels';
import type {
  ContractApi,
  Envelope,
  EventName,
  EventPayload,
  RendererBridge,
  ScanGrant,
} from '../../src-shared/contract';
import { AppError } from '../../src-shared/errors';
import { withAnswerBound } from './answer-bound';
import { fileBoundMs } from './answer-bounds';
import type { DroppedItem } from './dropped-item';
import { createWebBridge, stageFiles, type StagingProgress } from './web-bridge';
import { webFetch } from './web-session';

export type { StagingProgress } from './web-bridge';

declare global {
  interface Window {
    /** Put there by the Electron preload (it takes File objects); absent in web mode. */
    scan2mesh?: RendererBridge<File>;
  }
}

const electronBridge = window.scan2mesh;
const bridge: RendererBridge<File> | RendererBridge<DroppedItem> = electronBridge ?? createWebBridge();

function unwrap<T>(e: Envelope<T>): T {
  if (e.ok) return e.value;
  throw new AppError(e.error.code, e.error.message, {
    ...(e.error.action !== undefined ? { action: e.error.action } : {}),
    ...(e.error.retryable !== undefined ? { retryable: e.error.retryable } : {}),
  });
}

/** The contract as the UI uses it: typed calls that resolve to results and throw AppError. */
const callBridge = callerOf(bridge.api);
export const api: ContractApi = buildApi<'promise'>(async (channel, req) =>
  unwrap(await callBridge(channel, req)),
);

export function onEvent<E extends EventName>(
  event: E,
  listener: (payload: EventPayload<E>) => void,
): () => void {
  return bridge.on(event, listener);
}

export const transport = bridge.transport;

/**
 * Grants for what the user dropped or picked: the only way the UI can name files to the core. Electron
 * grants the real paths of the File objects (folders included); web mode uploads the files to the app's
 * stage first, reporting progress, and the stage grants the copies.
 */
export function grantsForFiles(
  items: DroppedItem[],
  onProgress?: (p: StagingProgress) => void,
): Promise<ScanGrant[]> {
  if (electronBridge) return electronBridge.grantsForFiles(items.map((i) => i.file));
  return stageFiles(items, onProgress);
}

/**
 * The bytes of a file the core handed out by URL (a finished mesh). In web mode that URL is under /api
 * and needs the session token as a header, which a bare fetch (or an <img>, a link) would not send.
 */
export function fetchAppFile(url: string): Promise<Response> {
  if (electronBridge) return fetch(url, { credentials: 'same-origin' });
  return withAnswerBound((signal) => webFetch(url, { signal }), fileBoundMs, 'Reading a mesh file');
}

export interface ErrorText {
  message: string;
  action?: string;
  code?: string;
}

export function errorText(e: unknown): ErrorText {
  if (e instanceof AppError)
    return e.action
      ? { message: e.message, action: e.action, code: e.code }
      : { message: e.message, code: e.code };
  return { message: e instanceof Error ? e.message : String(e) };
}
