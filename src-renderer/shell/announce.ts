import { create } from 'zustand';

interface AnnounceState {
  message: string;
  /** Bumped on every announcement so that saying the same words twice is still heard. */
  seq: number;
  say(message: string): void;
}

/** One polite live region for the whole app: short confirmations a screen reader should hear. */
export const useAnnounce = create<AnnounceState>((set) => ({
  message: '',
  seq: 0,
  say: (message) => set((s) => ({ message, seq: s.seq + 1 })),
}));

export const announce = (message: string): void => useAnnounce.getState().say(message);
