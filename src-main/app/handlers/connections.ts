import type { Handlers } from '../dispatch.js';
import type { StructureJudge } from '../services.js';
import { AppError, isAppError } from '../../../src-shared/errors.js';
import type { RunningEngine } from '../../engine/local-engine.js';
import type { Logger } from '../../logging/logger.js';
import type { SecretStore } from '../../secrets/secret-store.js';
import { resolveConnection } from '../../connections/connection-resolver.js';
import { ServiceClient } from '../../service/service-client.js';
import type { ProfileStore } from '../../settings/profile-store.js';
import { connectionCapabilities } from '../structure-check.js';

interface ConnectionHandlerDeps {
  profiles: Pick<ProfileStore, 'get'>;
  secrets: SecretStore;
  localEngine: () => Promise<RunningEngine>;
  engine: StructureJudge;
  logger: Logger;
}

export function connectionHandlers(
  deps: ConnectionHandlerDeps,
): Pick<Handlers, 'profiles.test' | 'profiles.capabilities'> {
  const profileOf = (id: string) => {
    const p = deps.profiles.get(id);
    if (!p) throw new AppError('not-found', 'That connection no longer exists.');
    return p;
  };
  return {
    'profiles.test': async ({ id }) => {
      const profile = profileOf(id);
      let client: ServiceClient | undefined;
      try {
        const conn = await resolveConnection(profile, deps);
        client = new ServiceClient({
          ...conn,
          logger: deps.logger.child('service'),
          retry: { maxAttempts: 2 },
        });
        const message = await client.testAuth();
        return { ok: true, message: message || 'Connected: the service accepted the credentials.' };
      } catch (e) {
        if (!isAppError(e)) throw e;
        return { ok: false, message: e.message, code: e.code, ...(e.action ? { action: e.action } : {}) };
      } finally {
        client?.close();
      }
    },
    'profiles.capabilities': async ({ id }) =>
      // One derivation for the panel, the submit handler and the command line (structure-check.ts).
      connectionCapabilities(profileOf(id).kind, deps.engine),
  };
}
