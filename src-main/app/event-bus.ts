import type { EventName, EventPayload } from '../../src-shared/contract.js';

type Listener = (event: EventName, payload: unknown) => void;

/** Events from the core to whichever transports are attached (a window, a web session, a test). */
export class EventBus {
  private readonly listeners = new Set<Listener>();

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const l of this.listeners) l(event, payload);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
