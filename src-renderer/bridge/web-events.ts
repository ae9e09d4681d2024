import { SILENT_AFTER_MS } from '../../src-shared/link-timing';
import { splitEventStream } from './event-stream';
import { useLink } from './link-state';
import { watchSilence } from './silence-watchdog';
import { forgetWebSession, webFetch } from './web-session';

/** Wait before connecting again after the stream ended or failed: the app may be restarting. */
const RETRY_MS = 2000;

/**
 * The app's event stream, read with fetch rather than EventSource: EventSource cannot send a header, and
 * the session token must never be put in an address. Connects again after RETRY_MS when the stream
 * ends or fails, as EventSource would; stops for good when the token is refused.
 *
 * An app that hangs with its socket open (its process stopped, its main thread stuck) neither ends nor
 * fails the stream: the server's heartbeat is what tells. A connection that does not answer, or a
 * stream silent for SILENT_AFTER_MS, is dropped and counts as lost; the attempts that follow are
 * watched the same way, and the first one answered makes the link live again (and the jobs read again).
 */
export function streamWebEvents(onMessage: (data: string) => void): void {
  // When the app was last heard from, once it fell silent: what the banner says, rather than the moment
  // the silence had lasted long enough to count.
  let silentSince: number | null = null;
  const run = async (): Promise<void> => {
    const aborter = new AbortController();
    const dog = watchSilence(SILENT_AFTER_MS, (lastHeard) => {
      silentSince ??= lastHeard;
      aborter.abort();
    });
    try {
      const res = await webFetch('/api/events', {
        headers: { Accept: 'text/event-stream' },
        signal: aborter.signal,
      });
      dog.feed();
      silentSince = null;
      if (res.status === 401) {
        forgetWebSession();
        useLink.getState().ended();
        return;
      }
      if (!res.ok || !res.body) throw new Error(`event stream refused (${res.status})`);
      useLink.getState().live();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        // Any chunk, the heartbeat's comment included, shows the app is there.
        dog.feed();
        const { messages, rest } = splitEventStream(buffer + value);
        buffer = rest;
        for (const m of messages)
          try {
            onMessage(m);
          } catch (e) {
            // A listener's failure is reported as EventSource's would be, without dropping the stream.
            reportError(e);
          }
      }
      throw new Error('event stream ended');
    } finally {
      dog.stop();
    }
  };
  const loop = (): void => {
    run().catch(() => {
      useLink.getState().lost(silentSince ?? Date.now());
      setTimeout(loop, RETRY_MS);
    });
  };
  loop();
}
