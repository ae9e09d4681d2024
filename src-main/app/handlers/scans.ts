import type { Handlers } from '../dispatch.js';
import type { Platform } from '../platform.js';
import type { ScanGrants } from '../scan-grants.js';
import type { ScanService } from '../../scans/scan-service.js';
import { AppError } from '../../../src-shared/errors.js';

interface ScanHandlerDeps {
  scans: Pick<ScanService, 'intake' | 'preview' | 'list' | 'forget' | 'inputsOf'>;
  scanGrants: Pick<ScanGrants, 'grant' | 'resolveAll'>;
  platform: Pick<Platform, 'chooseScans'>;
  /** Told the files of the scans the user removed: web mode's copies of them may go (core.ts). */
  forgotten?: (inputs: string[]) => Promise<void>;
}

export function scanHandlers({
  scans,
  scanGrants,
  platform,
  forgotten,
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
      const inputs = seriesIds.flatMap((id) => scans.inputsOf(id));
      await scans.forget(seriesIds);
      await forgotten?.(inputs);
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
