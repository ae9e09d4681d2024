import type { ConnectionProfile } from '../../src-shared/profiles.js';
import { AppError } from '../../src-shared/errors.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { engineCredentials, type RunningEngine } from '../engine/local-engine.js';

/** Everything a ServiceClient needs for one connection. */
export interface ResolvedConnection {
  profileId: string;
  profileName: string;
  baseUrl: string;
  authUrl: string;
  audience: string;
  clientId: string;
  clientSecret: string;
}

/**
 * Turns a profile into addresses and credentials: the local engine's come from the running engine
 * (started on first need), a remote profile's secret from the keychain.
 */
export async function resolveConnection(
  profile: ConnectionProfile,
  deps: { secrets: SecretStore; localEngine: () => Promise<RunningEngine> },
): Promise<ResolvedConnection> {
  if (profile.kind === 'local-engine') {
    return {
      profileId: profile.id,
      profileName: profile.name,
      ...engineCredentials(await deps.localEngine()),
    };
  }
  const secret = await deps.secrets.get(profile.id);
  if (!secret)
    throw new AppError('auth-failed', `No client secret is stored for the connection "${profile.name}".`, {
      action:
        'Open Connections, edit this connection and enter the client secret your service operator gave you.',
    });
  return {
    profileId: profile.id,
    profileName: profile.name,
    baseUrl: profile.baseUrl,
    authUrl: profile.authUrl,
    audience: profile.audience,
    clientId: profile.clientId,
    clientSecret: secret,
  };
}
