import { create } from 'zustand';

/**
 * Whether this page still hears the app (web mode's event stream): 'live'; 'lost' since a moment
 * (the server is gone or restarting: the page tries again); 'ended' (the server refused this page's
 * token: it was started again with a new one, and this page can do nothing more). A review found a
 * tab showing "15 running" and a time left 25 s after the server was killed, with no word.
 */
export type LinkState = 'live' | 'lost' | 'ended';

interface LinkStore {
  state: LinkState;
  /** When the link was lost or ended (ms since the epoch); null while live. */
  since: number | null;
  /** Bumped each time the link comes back, so that what the page shows is read again. */
  returns: number;
  live(): void;
  lost(at?: number): void;
  ended(at?: number): void;
}

export const useLink = create<LinkStore>((set, get) => ({
  state: 'live',
  since: null,
  returns: 0,
  live: () => {
    if (get().state === 'live') return;
    set((s) => ({ state: 'live', since: null, returns: s.returns + 1 }));
  },
  lost: (at = Date.now()) => {
    if (get().state === 'live') set({ state: 'lost', since: at });
  },
  ended: (at = Date.now()) => {
    if (get().state !== 'ended') set({ state: 'ended', since: get().since ?? at });
  },
}));
