import type { Handlers } from '../dispatch.js';
import type { Core } from '../core.js';
import { AppError, isAppError } from '../../../src-shared/errors.js';
import { STRUCTURES, structureInfo } from '../../../src-shared/structures.js';
import { LOCAL_STRUCTURES } from '../../engine/segmentation/index.js';
import { resolveConnection } from '../../service/connection-resolver.js';
import { ServiceClient } from '../../service/service-client.js';

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
    'profiles.capabilities': async ({ id }) => {
      const profile = profileOf(id);
      if (profile.kind === 'remote') return { anyStructure: true, refused: [], notes: [] };
      // The local engine says itself what it can do: ask its processor about each catalogue name.
      const refused: { name: string; reason: string }[] = [];
      const notes: { name: string; note: string }[] = [];
      for (const s of STRUCTURES) {
        const verdict = core.engineProcessor.validate({
          inputs: [{ name: 'cbct', extension: '.zip' }],
          meshes: [{ extension: '.stl', structures: [s.name] }],
        });
        if (verdict) refused.push({ name: s.name, reason: verdict });
        else {
          const note = core.engineProcessor.describe?.(s.name);
          if (note) notes.push({ name: s.name, note });
        }
      }
      // Names the engine makes that the service catalogue lacks (airway, soft tissue), for free entry.
      const extra = LOCAL_STRUCTURES.filter((name) => !structureInfo(name)).map((name) => ({
        name,
        note: core.engineProcessor.describe?.(name) ?? '',
      }));
      return { anyStructure: false, refused, notes, extra };
    },
  };
}
