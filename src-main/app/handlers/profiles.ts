import type { ProfileView } from '../../../src-shared/contract.js';
import type { ConnectionProfile, RemoteProfileInput } from '../../../src-shared/profiles.js';
import type { Handlers } from '../dispatch.js';
import type { EventSink } from '../services.js';
import { tokenAccount } from '../../connections/connection-resolver.js';
import { boundSecret, secretBindingChanged, secretFor } from '../../secrets/secret-binding.js';
import type { SecretStore } from '../../secrets/secret-store.js';
import type { ProfileStore } from '../../settings/profile-store.js';

const inputOf = (p: ConnectionProfile): RemoteProfileInput => {
  const { id, name, baseUrl, authUrl, audience, clientId } = p;
  return { id, name, baseUrl, authUrl, audience, clientId };
};

type ProfileHandlers = Pick<
  Handlers,
  'profiles.list' | 'profiles.save' | 'profiles.delete' | 'profiles.setActive'
>;

interface ProfileHandlerDeps {
  profiles: Pick<ProfileStore, 'list' | 'activeId' | 'save' | 'delete' | 'setActive'>;
  secrets: Pick<SecretStore, 'get' | 'set' | 'delete'>;
  events: EventSink;
}

export function profileHandlers({ profiles, secrets, events }: ProfileHandlerDeps): ProfileHandlers {
  const view = async (p: ConnectionProfile, activeId: string): Promise<ProfileView> => ({
    ...p,
    // The local engine makes its own credentials each time it starts; it never needs a stored secret.
    // Stored for this connection as it is now: a secret typed for other addresses is as good as none.
    secretStored: p.kind === 'local-engine' ? true : secretFor(p, await secrets.get(p.id)) !== null,
    active: p.id === activeId,
  });
  return {
    'profiles.list': async () => {
      const activeId = profiles.activeId();
      return { profiles: await Promise.all(profiles.list().map((p) => view(p, activeId))) };
    },
    'profiles.save': async ({ profile, clientSecret }) => {
      const before = profile.id ? profiles.list().find((p) => p.id === profile.id) : undefined;
      const saved = profiles.save(profile);
      try {
        // A secret typed for one sign-in address is never sent to another. The stored secret carries the
        // addresses it was typed for (secret-binding.ts), so a job or test that reads the edited profile
        // before this line cannot use it; a changed address also drops it (and its token), and the form
        // asks for it again unless it came with this save.
        if (before && secretBindingChanged(before, saved)) {
          await secrets.delete(saved.id);
          await secrets.delete(tokenAccount(saved.id));
        }
        if (clientSecret) await secrets.set(saved.id, boundSecret(saved, clientSecret));
      } catch (e) {
        // A new connection whose secret could not be kept would only fail later: take it back. An edit
        // goes back to what it was, so an old secret never stays behind a new address.
        if (!before) profiles.delete(saved.id);
        else profiles.save(inputOf(before));
        throw e;
      } finally {
        events.emit('profiles.changed', {});
      }
      return view(saved, profiles.activeId());
    },
    'profiles.delete': async ({ id }) => {
      profiles.delete(id);
      await secrets.delete(id);
      // Its token too, which the keychain keeps for the next run (connection-resolver.ts).
      await secrets.delete(tokenAccount(id));
      events.emit('profiles.changed', {});
      return {};
    },
    'profiles.setActive': async ({ id }) => {
      profiles.setActive(id);
      events.emit('profiles.changed', {});
      return {};
    },
  };
}
