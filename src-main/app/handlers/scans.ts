import type { Handlers } from '../dispatch.js';
import type { Core } from '../core.js';
import { AppError } from '../../../src-shared/errors.js';

export function scanHandlers(core: Core): Pick<Handlers, 'scans.intake' | 'scans.preview' | 'scans.choose'> {
  return {
    // Only what a transport granted is read: the renderer has ids, never paths (scan-grants.ts).
    'scans.intake': ({ grants }) => core.scans.intake(core.scanGrants.resolveAll(grants)),
    'scans.preview': (req) => core.scans.preview(req),
    'scans.choose': async () => {
      if (!core.platform.chooseScans)
        throw new AppError('bad-request', 'There is no native file dialog in web mode.', {
          action: 'Use "Add scans" in the page, or drop files onto the window.',
        });
      const paths = await core.platform.chooseScans();
      return { grants: paths.map((p) => core.scanGrants.grant(p)) };
    },
  };
}
