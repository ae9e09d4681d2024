import { create } from 'zustand';
import type { ProfileView } from '../../src-shared/contract';
import { api, errorText } from '../bridge/api';

interface ConnectionsState {
  profiles: ProfileView[];
  loading: boolean;
  error: { message: string; action?: string } | null;
  load(): Promise<void>;
}

export const useConnections = create<ConnectionsState>((set) => ({
  profiles: [],
  loading: false,
  error: null,
  async load() {
    set({ loading: true });
    try {
      const { profiles } = await api.profiles.list({});
      set({ profiles, loading: false, error: null });
    } catch (e) {
      set({ loading: false, error: errorText(e) });
    }
  },
}));
