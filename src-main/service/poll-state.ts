import type { IncomingHttpHeaders } from 'node:http';
import type { PollResult } from '../../src-shared/job-spec.js';
import { STAGE_MAX_CHARS } from '../../src-shared/stage-text.js';
import { retryAfterMs } from './http-transport.js';

export type PollState =
  | {
      state: 'processing';
      retryAfterMs?: number;
      /** 0..1, when the service tells (the local engine does). */ progress?: number;
      /** What it is doing, in its words, when it tells (X-Stage; the local engine does). */
      stage?: string;
    }
  | { state: 'finished'; result: PollResult };

/** A 202 answer to a poll: Retry-After, and X-Progress and X-Stage where the service sends them. */
export function processingState(headers: IncomingHttpHeaders): PollState {
  const state: PollState = { state: 'processing' };
  const after = retryAfterMs(headers);
  if (after !== undefined) state.retryAfterMs = after;
  const progress = Number(headers['x-progress']);
  if (headers['x-progress'] !== undefined && progress >= 0 && progress <= 1) state.progress = progress;
  const stage = stageHeader(headers['x-stage']);
  if (stage) state.stage = stage;
  return state;
}

/**
 * The X-Stage header as shown to the user: decoded, one short line of printable text, or nothing. A
 * service's header is untrusted text, so anything odd is dropped rather than shown.
 */
export function stageHeader(raw: string | string[] | undefined): string | undefined {
  if (typeof raw !== 'string') return undefined;
  let text: string;
  try {
    text = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  // eslint-disable-next-line no-control-regex
  text = text.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return text.length > 0 && text.length <= STAGE_MAX_CHARS ? text : undefined;
}
