import { create } from 'zustand';
import type { AppInfo } from '../../src-shared/contract';
import type { AppSettings } from '../../src-shared/settings';
import { api, errorText, type ErrorText } from '../bridge/api';

interface AppState {
  info: AppInfo | null;
  settings: AppSettings | null;
  settingsError: ErrorText | null;
  load(): Promise<void>;
  loadSettings(): Promise<void>;
  updateSettings(patch: Partial<AppSettings>): Promise<boolean>;
}

/** What the app is and how the user set it up: read once at start, updated from the Settings screen. */
export const useApp = create<AppState>((set) => ({
  info: null,
  settings: null,
  settingsError: null,
  async load() {
    const [info] = await Promise.allSettled([api.app.info({}), useApp.getState().loadSettings()]);
    if (info.status === 'fulfilled') set({ info: info.value });
  },
  async loadSettings() {
    try {
      set({ settings: await api.settings.get({}), settingsError: null });
    } catch (e) {
      set({ settingsError: errorText(e) });
    }
  },
  async updateSettings(patch) {
    try {
      set({ settings: await api.settings.update(patch), settingsError: null });
      return true;
    } catch (e) {
      set({ settingsError: errorText(e) });
      return false;
    }
  },
}));
