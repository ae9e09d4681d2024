import type { Handlers } from '../dispatch.js';
import type { Core } from '../core.js';

export function settingsHandlers(core: Core): Pick<Handlers, 'settings.get' | 'settings.update'> {
  return {
    'settings.get': async () => core.settings.get(),
    'settings.update': async (patch) => {
      const next = core.settings.update(patch);
      // Changed limits apply to the running queue at once, not only after a restart.
      if (patch.uploads !== undefined || patch.downloads !== undefined)
        (await core.jobs()).setLimits({ uploads: next.uploads, downloads: next.downloads });
      return next;
    },
  };
}
