import { ZodError } from 'zod';
import {
  channels,
  events,
  type Channel,
  type Envelope,
  type EventName,
  type RequestOf,
  type ResponseOf,
} from '../../src-shared/contract.js';
import { AppError, isAppError } from '../../src-shared/errors.js';
import type { Logger } from '../logging/logger.js';

export type Handlers = { [C in Channel]: (req: RequestOf<C>) => Promise<ResponseOf<C>> };

function describeZod(e: ZodError): string {
  return e.issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/**
 * The single entry for both transports: checks the channel exists, validates the payload, runs the
 * handler, validates the result, and turns every failure into an error envelope the renderer can show.
 */
export function createDispatcher(handlers: Handlers, logger: Logger) {
  return async function dispatch(channel: string, payload: unknown): Promise<Envelope<unknown>> {
    if (!Object.hasOwn(channels, channel)) {
      return { ok: false, error: { code: 'bad-request', message: `Unknown channel "${channel}".` } };
    }
    const def = channels[channel as Channel];
    const req = def.request.safeParse(payload);
    if (!req.success) {
      return { ok: false, error: { code: 'bad-request', message: describeZod(req.error) } };
    }
    try {
      const handler = handlers[channel as Channel] as (r: unknown) => Promise<unknown>;
      const value = await handler(req.data);
      const res = def.response.safeParse(value);
      if (!res.success) {
        // A result that does not fit the contract is our bug: say so rather than send something half-valid.
        logger.error('handler result does not fit the contract', { channel, issues: describeZod(res.error) });
        return {
          ok: false,
          error: { code: 'internal', message: `The app produced an invalid answer for ${channel}.` },
        };
      }
      return { ok: true, value: res.data };
    } catch (e) {
      if (isAppError(e)) return { ok: false, error: e.toShape() };
      if (e instanceof ZodError)
        return { ok: false, error: { code: 'bad-request', message: describeZod(e) } };
      logger.error('handler failed', {
        channel,
        error: e instanceof Error ? (e.stack ?? e.message) : String(e),
      });
      return {
        ok: false,
        error: {
          code: 'internal',
          message: `Something went wrong in the app (${channel}).`,
          action: 'Try again; if it keeps happening, send the log file from the data folder to support.',
        },
      };
    }
  };
}

export type Dispatch = ReturnType<typeof createDispatcher>;

/** Validates an event before it leaves the main process, like every other payload. */
export function checkEvent(event: EventName, payload: unknown): unknown {
  const parsed = events[event].safeParse(payload);
  if (!parsed.success) throw new AppError('internal', `Event ${event} does not fit the contract.`);
  return parsed.data;
}
