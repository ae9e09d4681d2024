import type { ProfileView } from '../../../src-shared/contract.js';
import type { ConnectionProfile } from '../../../src-shared/profiles.js';
import type { Handlers } from '../dispatch.js';
import type { Core } from '../core.js';

type ProfileHandlers = Pick<
  Handlers,
  'profiles.list' | 'profiles.save' | 'profiles.delete' | 'profiles.setActive'
>;

export function profileHandlers(core: Core): ProfileHandlers {
  const { profiles, platform, bus } = core;
  const view = async (p: ConnectionProfile, activeId: string): Promise<ProfileView> => ({
    ...p,
    // The local engine makes its own credentials each time it starts; it never needs a stored secret.
    secretStored: p.kind === 'local-engine' ? true : await platform.secrets.has(p.id),
    active: p.id === activeId,
  });
  return {
    'profiles.list': async () => {
      const activeId = profiles.activeId();
      return { profiles: await Promise.all(profiles.list().map((p) => view(p, activeId))) };
    },
    'profiles.save': async ({ profile, clientSecret }) => {
      const saved = profiles.save(profile);
      try {
        if (clientSecret) await platform.secrets.set(saved.id, clientSecret);
      } catch (e) {
        // A new connection whose secret could not be kept would only fail later: take it back.
        if (!profile.id) profiles.delete(saved.id);
        throw e;
      } finally {
        bus.emit('profiles.changed', {});
      }
      return view(saved, profiles.activeId());
    },
    'profiles.delete': async ({ id }) => {
      profiles.delete(id);
      await platform.secrets.delete(id);
      bus.emit('profiles.changed', {});
      return {};
    },
    'profiles.setActive': async ({ id }) => {
      profiles.setActive(id);
      bus.emit('profiles.changed', {});
      return {};
    },
  };
}
