import type { ProfileView } from '../../../src-shared/contract.js';
import type { ConnectionProfile, RemoteProfileInput } from '../../../src-shared/profiles.js';
import type { Handlers } from '../dispatch.js';
import type { EventSink } from '../services.js';
import { tokenAccount } from '../../connections/connection-resolver.js';
import type { SecretStore } from '../../secrets/secret-store.js';
import type { ProfileStore } from '../../settings/profile-store.js';

/** What decides where the client secret is sent: a change to any of them makes the stored secret stale. */
const SECRET_BOUND_FIELDS = ['baseUrl', 'authUrl', 'audience', 'clientId'] as const;

/** True when a saved profile would send its secret somewhere (or for something) it was not typed for. */
export function secretBindingChanged(before: ConnectionProfile, after: ConnectionProfile): boolean {
  return SECRET_BOUND_FIELDS.some((f) => before[f] !== after[f]);
}

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
  secrets: Pick<SecretStore, 'has' | 'set' | 'delete'>;
  events: EventSink;
}

export function profileHandlers({ profiles, secrets, events }: ProfileHandlerDeps): ProfileHandlers {
  const view = async (p: ConnectionProfile, activeId: string): Promise<ProfileView> => ({
    ...p,
    // The local engine makes its own credentials each time it starts; it never needs a stored secret.
    secretStored: p.kind === 'local-engine' ? true : await secrets.has(p.id),
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
        // A secret typed for one sign-in address is never sent to another: a changed address (or audience,
        // or client id) drops the stored secret, and the form asks for it again unless it came with this save.
        if (before && secretBindingChanged(before, saved)) {
          await secrets.delete(saved.id);
          await secrets.delete(tokenAccount(saved.id));
        }
        if (clientSecret) await secrets.set(saved.id, clientSecret);
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
