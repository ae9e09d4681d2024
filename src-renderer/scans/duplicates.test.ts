import { describe, expect, it } from 'vitest';
import type { SeriesSummary } from '../../src-shared/scans';
import { duplicateOf } from './duplicates';

// Only the fields the check reads; the rest of a summary plays no part in it.
const s = (id: string, seriesUid: string, instancesKey?: string): SeriesSummary =>
  ({ id, seriesUid, ...(instancesKey ? { instancesKey } : {}) }) as SeriesSummary;

/** Ids of the cards that repeat an earlier one, mapped to the earlier one's id. */
function duplicateIds(list: readonly SeriesSummary[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const card of list) {
    const first = duplicateOf(card, list);
    if (first) out.set(card.id, first.id);
  }
  return out;
}

describe('the same series dropped twice', () => {
  it('is the later card of the same series with the same images', () => {
    const folder = s('a', '1.2.3', 'k1');
    const zip = s('b', '1.2.3', 'k1');
    expect(duplicateOf(zip, [folder, zip])).toBe(folder);
    expect(duplicateOf(folder, [folder, zip])).toBeUndefined();
  });

  it('is not a different subset of the same series, nor another series with equal images', () => {
    const whole = s('a', '1.2.3', 'k1');
    const part = s('b', '1.2.3', 'k2');
    const other = s('c', '9.9.9', 'k1');
    expect(duplicateIds([whole, part, other]).size).toBe(0);
  });

  it('maps every later copy to the first one, and ignores a summary without a key', () => {
    const list = [s('a', 'u', 'k'), s('b', 'u', 'k'), s('c', 'u', 'k'), s('d', 'u')];
    expect([...duplicateIds(list)]).toEqual([
      ['b', 'a'],
      ['c', 'a'],
    ]);
  });
});
