import type { Handlers } from '../dispatch.js';
import type { Platform } from '../platform.js';
import type { ScanGrants } from '../scan-grants.js';
import type { ScanService } from '../../scans/scan-service.js';
import { AppError } from '../../../src-shared/errors.js';

interface ScanHandlerDeps {
  scans: Pick<ScanService, 'intake' | 'preview' | 'list' | 'forget'>;
  scanGrants: Pick<ScanGrants, 'grant' | 'resolveAll'>;
  platform: Pick<Platform, 'chooseScans'>;
}

export function scanHandlers({
  scans,
  scanGrants,
  platform,
}: ScanHandlerDeps): Pick<
  Handlers,
  'scans.intake' | 'scans.preview' | 'scans.list' | 'scans.forget' | 'scans.choose'
> {
  return {
    // Only what a transport granted is read: the renderer has ids, never paths (scan-grants.ts).
    'scans.intake': ({ grants }) => scans.intake(scanGrants.resolveAll(grants)),
    'scans.preview': (req) => scans.preview(req),
    'scans.list': async () => ({ series: scans.list() }),
    'scans.forget': async ({ seriesIds }) => {
      await scans.forget(seriesIds);
      return {};
    },
    'scans.choose': async () => {
      if (!platform.chooseScans)
        throw new AppError('bad-request', 'There is no native file dialog in web mode.', {
          action: 'Use "Add scans" in the page, or drop files onto the window.',
        });
      const paths = await platform.chooseScans();
      return { grants: paths.map((p) => scanGrants.grant(p)) };
    },
  };
}
