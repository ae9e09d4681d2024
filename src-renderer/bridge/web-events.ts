import { splitEventStream } from './event-stream';
import { useLink } from './link-state';
import { forgetWebSession, webFetch } from './web-session';

/** Wait before connecting again after the stream ended or failed: the app may be restarting. */
const RETRY_MS = 2000;

/**
 * The app's event stream, read with fetch rather than EventSource: EventSource cannot send a header, and
 * the session token must never be put in an address. Connects again after RETRY_MS when the stream
 * ends or fails, as EventSource would; stops for good when the token is refused.
 */
export function streamWebEvents(onMessage: (data: string) => void): void {
  const run = async (): Promise<void> => {
    const res = await webFetch('/api/events', { headers: { Accept: 'text/event-stream' } });
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
  };
  const loop = (): void => {
    run().catch(() => {
      useLink.getState().lost();
      setTimeout(loop, RETRY_MS);
    });
  };
  loop();
}
