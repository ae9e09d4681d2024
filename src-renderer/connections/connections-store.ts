import { create } from 'zustand';
import type { Capabilities, ConnectionTest, ProfileView } from '../../src-shared/contract';
import type { RemoteProfileInput } from '../../src-shared/profiles';
import { api, errorText, type ErrorText } from '../bridge/api';

interface TestState {
  running: boolean;
  result: ConnectionTest | null;
  at?: number;
}

interface ConnectionsState {
  profiles: ProfileView[];
  loaded: boolean;
  loading: boolean;
  error: ErrorText | null;
  tests: Record<string, TestState>;
  capabilities: Record<string, Capabilities>;
  load(): Promise<void>;
  save(profile: RemoteProfileInput, clientSecret?: string): Promise<ProfileView>;
  remove(id: string): Promise<void>;
  setActive(id: string): Promise<void>;
  test(id: string): Promise<ConnectionTest>;
  loadCapabilities(id: string): Promise<void>;
}

export const activeProfile = (profiles: readonly ProfileView[]): ProfileView | undefined =>
  profiles.find((p) => p.active);

export const useConnections = create<ConnectionsState>((set, get) => ({
  profiles: [],
  loaded: false,
  loading: false,
  error: null,
  tests: {},
  capabilities: {},

  async load() {
    set({ loading: true });
    try {
      const { profiles } = await api.profiles.list({});
      set({ profiles, loading: false, loaded: true, error: null });
      const active = activeProfile(profiles);
      if (active) void get().loadCapabilities(active.id);
    } catch (e) {
      set({ loading: false, error: errorText(e) });
    }
  },

  async save(profile, clientSecret) {
    let saved: ProfileView;
    try {
      saved = await api.profiles.save(clientSecret ? { profile, clientSecret } : { profile });
    } catch (e) {
      // A save can fail half-way (the profile written, the keychain refusing the secret): show what is stored.
      await get().load();
      throw e;
    }
    // A changed address or secret makes an old test result meaningless.
    set((s) => {
      const tests = { ...s.tests };
      delete tests[saved.id];
      const capabilities = { ...s.capabilities };
      delete capabilities[saved.id];
      return { tests, capabilities };
    });
    await get().load();
    return saved;
  },

  async remove(id) {
    await api.profiles.delete({ id });
    await get().load();
  },

  async setActive(id) {
    await api.profiles.setActive({ id });
    await get().load();
  },

  async test(id) {
    set((s) => ({ tests: { ...s.tests, [id]: { running: true, result: s.tests[id]?.result ?? null } } }));
    let result: ConnectionTest;
    try {
      result = await api.profiles.test({ id });
    } catch (e) {
      const t = errorText(e);
      result = { ok: false, message: t.message, ...(t.action ? { action: t.action } : {}) };
    }
    set((s) => ({ tests: { ...s.tests, [id]: { running: false, result, at: Date.now() } } }));
    return result;
  },

  async loadCapabilities(id) {
    try {
      const caps = await api.profiles.capabilities({ id });
      set((s) => ({ capabilities: { ...s.capabilities, [id]: caps } }));
    } catch {
      // Without capabilities the picker simply shows no warnings; the service still has the last word.
    }
  },
}));
