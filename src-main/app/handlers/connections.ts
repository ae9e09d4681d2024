import type { Handlers } from '../dispatch.js';
import type { Core } from '../core.js';
import { AppError, isAppError } from '../../../src-shared/errors.js';
import { resolveConnection } from '../../service/connection-resolver.js';
import { ServiceClient } from '../../service/service-client.js';
import { connectionCapabilities } from '../structure-check.js';

export function connectionHandlers(core: Core): Pick<Handlers, 'profiles.test' | 'profiles.capabilities'> {
  const profileOf = (id: string) => {
    const p = core.profiles.get(id);
    if (!p) throw new AppError('not-found', 'That connection no longer exists.');
    return p;
  };
  return {
    'profiles.test': async ({ id }) => {
      const profile = profileOf(id);
      let client: ServiceClient | undefined;
      try {
        const conn = await resolveConnection(profile, core);
        client = new ServiceClient({
          ...conn,
          logger: core.logger.child('service'),
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
      connectionCapabilities(profileOf(id).kind, core.engineProcessor),
  };
}
