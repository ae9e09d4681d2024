import type { SeriesSummary } from '../../src-shared/scans';

/**
 * The series already on the list that holds the same images as `series` (same SeriesInstanceUID and
 * the same set of SOP instances): a folder and its zip, or one folder dropped twice from two places.
 * Only earlier cards count, so the first copy stays the one that is sent.
 */
export function duplicateOf(
  series: SeriesSummary,
  list: readonly SeriesSummary[],
): SeriesSummary | undefined {
  if (!series.instancesKey) return undefined;
  for (const other of list) {
    if (other.id === series.id) return undefined;
    if (other.seriesUid === series.seriesUid && other.instancesKey === series.instancesKey) return other;
  }
  return undefined;
}
