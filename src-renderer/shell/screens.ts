import { create } from 'zustand';

export type Screen = 'scans' | 'jobs' | 'viewer' | 'connections';

interface ShellState {
  screen: Screen;
  go(screen: Screen): void;
}

export const useShell = create<ShellState>((set) => ({
  screen: 'scans',
  go: (screen) => set({ screen }),
}));
