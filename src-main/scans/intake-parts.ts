import { basename } from 'node:path';
import type { ScanProblem } from '../../src-shared/scans.js';
import { isLocalizer } from './classify.js';
import type { DicomHeader } from './header-types.js';

/**
 * Scans stored across several multi-frame files. A multi-frame scan is sent as one file (the service
 * takes one .dcm holding the whole volume, or a zip of single-slice files), so parts are never joined:
 * a model of one part would end in a flat face where the file ends, as if the anatomy did.
 */

const EXPORT_AGAIN = 'Export the scan again as one multi-frame file or as one file per slice.';

/**
 * The files of one concatenation (Concatenation UID: one multi-frame image split across files), or
 * undefined when the concatenation is whole in one file (In-concatenation Total Number 1).
 */
export function concatenationProblem(parts: DicomHeader[]): ScanProblem | undefined {
  let total: number | undefined;
  const numbers = new Set<number>();
  for (const h of parts) {
    const c = h.concatenation;
    if (c?.total !== undefined) total = Math.max(total ?? 0, c.total);
    if (c?.number !== undefined) numbers.add(c.number);
  }
  if (parts.length === 1 && total === 1) return undefined;
  const missing: number[] = [];
  if (total !== undefined)
    for (let k = 1; k <= total && missing.length < 10; k++) if (!numbers.has(k)) missing.push(k);
  const files = parts.length === 1 ? 'one file here' : `${parts.length} files`;
  const lacking =
    missing.length > 0
      ? ` Part${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${total} ${missing.length > 1 ? 'are' : 'is'} not among the files.`
      : total === undefined && parts.length === 1
        ? ' The other parts are not among the files.'
        : '';
  return {
    severity: 'error',
    code: 'concatenation',
    message: `This image is split across several multi-frame files (a DICOM concatenation; ${files}).${lacking} scan2mesh sends a multi-frame scan as one file and does not join parts, and a model of one part would end in a flat face where its file ends. ${EXPORT_AGAIN}`,
  };
}

/**
 * A warning for a multi-frame file whose series holds other multi-frame files (`others`), not marked
 * as parts of one image: each is a volume of its own, which may be only part of the scan.
 */
export function otherVolumesProblem(others: number): ScanProblem | undefined {
  if (others === 0) return undefined;
  return {
    severity: 'warning',
    code: 'split-series',
    message: `This series has ${others + 1} multi-frame files; each is shown, and made into a model, on its own. If they are parts of one scan, each model shows only its part and ends in a flat face where its file ends. ${EXPORT_AGAIN}`,
  };
}

/**
 * A series' images less its localizers (scouts: Image Type LOCALIZER, the overview taken to plan the
 * scan), when it has other images: a scanner or PACS may file the scout in the scan's series, and one
 * such file condemned the whole scan (a review). A series of localizers only stays as it is: the
 * fitness check refuses it, saying what it is.
 */
export function withoutLocalizers(
  headers: DicomHeader[],
  display: (path: string) => string,
): { images: DicomHeader[]; problem?: ScanProblem } {
  const scouts = headers.filter((h) => isLocalizer(h.imageType));
  if (scouts.length === 0 || scouts.length === headers.length) return { images: headers };
  const names = scouts.slice(0, 3).map((h) => basename(display(h.path)));
  const more = scouts.length > 3 ? ` and ${scouts.length - 3} more` : '';
  const n = scouts.length;
  return {
    images: headers.filter((h) => !isLocalizer(h.imageType)),
    problem: {
      severity: 'info',
      code: 'localizers-left-out',
      message: `${n} localizer image${n > 1 ? 's' : ''} (the scout taken to plan the scan) ${n > 1 ? 'were' : 'was'} filed in this series and left out: ${names.join(', ')}${more}.`,
      file: display(scouts[0]!.path),
    },
  };
}
