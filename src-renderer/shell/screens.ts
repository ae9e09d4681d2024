import { create } from 'zustand';

export type Screen = 'scans' | 'jobs' | 'viewer' | 'connections' | 'settings';

interface ShellState {
  screen: Screen;
  /** The finished job whose meshes the viewer shows. */
  viewerJobId: string | null;
  /** A connection the Connections screen opens for editing (from a job's "Edit connection"). */
  editProfileId: string | null;
  go(screen: Screen): void;
  openInViewer(jobId: string): void;
  editConnection(profileId: string): void;
  clearEditRequest(): void;
}

export const useShell = create<ShellState>((set) => ({
  screen: 'scans',
  viewerJobId: null,
  editProfileId: null,
  go: (screen) => set({ screen }),
  openInViewer: (jobId) => set({ screen: 'viewer', viewerJobId: jobId }),
  editConnection: (profileId) => set({ screen: 'connections', editProfileId: profileId }),
  clearEditRequest: () => set({ editProfileId: null }),
}));
