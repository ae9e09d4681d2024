import { AppError } from '../../src-shared/errors';
import { useLink } from './link-state';

/** Why a call was given up: it went unanswered past its bound, or the page stopped hearing the app. */
class GivenUp extends Error {
  constructor(readonly why: 'too-long' | 'link-lost') {
    super(why);
  }
}

const waiting = new Set<AbortController>();

// The event stream went silent or failed: nothing else this page asked will be answered either, so each
// waiting call ends now with the same words, instead of at its own (perhaps much longer) bound.
useLink.subscribe((now, before) => {
  if (before.state !== 'live' || now.state === 'live') return;
  for (const c of waiting) c.abort(new GivenUp('link-lost'));
});

const duration = (ms: number): string =>
  ms >= 120_000 ? `${Math.round(ms / 60_000)} minutes` : `${Math.round(ms / 1000)} seconds`;

function givenUpError(why: GivenUp['why'], what: string, boundMs: number): AppError {
  const action =
    'Check that `scan2mesh web` is still running (its terminal says what went wrong), then try again. It may have been done all the same: look before you do it twice.';
  return why === 'too-long'
    ? new AppError('network', `${what} got no answer from scan2mesh within ${duration(boundMs)}.`, { action })
    : new AppError('network', `${what} got no answer: scan2mesh stopped answering.`, { action });
}

/**
 * The answer with its body passed through: the call counts as waiting until the body has fully come,
 * and a body cut off because the call was given up fails with the words of `failure`.
 */
function untilRead(res: Response, done: () => void, failure: (e: unknown) => unknown): Response {
  if (!res.body) {
    done();
    return res;
  }
  const reader = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      try {
        const next = await reader.read();
        if (next.done) {
          done();
          c.close();
        } else c.enqueue(next.value);
      } catch (e) {
        done();
        c.error(failure(e));
      }
    },
    cancel(why) {
      done();
      return reader.cancel(why);
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/**
 * A request to the app that cannot leave the page waiting for ever. `start` issues it with the signal
 * given. It is given up when the app has not started answering within boundMs (the bound stops
 * counting at the answer's first byte: a large file then streams for as long as it takes), or, at
 * any point until the answer has fully come, when the page stops hearing the app (link-state). Either
 * way it fails with an AppError saying so, about `what` ("The copy of scan.dcm"). Other failures pass as
 * they are.
 */
export async function withAnswerBound(
  start: (signal: AbortSignal) => Promise<Response>,
  boundMs: number,
  what: string,
): Promise<Response> {
  const aborter = new AbortController();
  waiting.add(aborter);
  const done = (): void => {
    waiting.delete(aborter);
  };
  const timer = setTimeout(() => aborter.abort(new GivenUp('too-long')), boundMs);
  const failure = (e: unknown): unknown => {
    const reason: unknown = aborter.signal.reason;
    return reason instanceof GivenUp ? givenUpError(reason.why, what, boundMs) : e;
  };
  try {
    return untilRead(await start(aborter.signal), done, failure);
  } catch (e) {
    done();
    throw failure(e);
  } finally {
    clearTimeout(timer);
  }
}
