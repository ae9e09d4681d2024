// The tables de-identification is built from, as scripts/generate-deid-profile.mjs (and, for the
// value multiplicity and the standard's UIDs, generate-deid-pydicom-tables.mjs) writes them:
// data files (JSON) rather than code, with tags as 8 hex digits, read into numbers once here.
import basicProfile from './deid-basic-profile.generated.json' with { type: 'json' };
import dictionary from './deid-dictionary.generated.json' with { type: 'json' };
import multiplicity from './deid-multiplicity.generated.json' with { type: 'json' };
import standardUids from './deid-standard-uids.generated.json' with { type: 'json' };

const tag = (hex: string): number => Number.parseInt(hex, 16) >>> 0;

/**
 * PS3.15 Table E.1-1, "Basic Profile" column: [tag, action, attribute name]. Actions: D dummy value,
 * Z empty, X remove, K keep, C clean, U new UID; "X/Z" and the like leave the choice to the
 * de-identifier (deid-profile.ts makes it). Private attributes (odd groups) are X by the table too.
 */
export const BASIC_PROFILE: readonly (readonly [number, string, string])[] = basicProfile.exact.map(
  ([t, action, name]) => [tag(t as string), action as string, name as string] as const,
);

/** Rows for repeating groups: a tag matches when (tag & mask) === value. */
export const BASIC_PROFILE_REPEATING: readonly (readonly [number, number, string, string])[] =
  basicProfile.repeating.map(
    ([value, mask, action, name]) =>
      [tag(value as string), tag(mask as string), action as string, name as string] as const,
  );

/** Every public attribute of the PS3.6 dictionary by VR ("US|SS": either). */
export const PUBLIC_TAGS_BY_VR: Readonly<Record<string, readonly number[]>> = Object.fromEntries(
  Object.entries(dictionary.byVr as Record<string, string[]>).map(([vr, tags]) => [vr, tags.map(tag)]),
);

/** Repeating-group attributes (50xx, 60xx...): a tag matches when (tag & mask) === value. */
export const PUBLIC_REPEATING_TAGS: readonly (readonly [number, number, string])[] = dictionary.repeating.map(
  ([value, mask, vr]) => [tag(value as string), tag(mask as string), vr as string] as const,
);

/** How many values a number or code attribute may hold (PS3.6 VM: "1", "1-2", "2-2n", "1-n"...). */
export const VALUE_VM: ReadonlyMap<number, string> = new Map(
  Object.entries(multiplicity.byVm as Record<string, string[]>).flatMap(([vm, tags]) =>
    tags.map((t) => [tag(t), vm] as const),
  ),
);

/** Every UID the standard defines (PS3.6 Table A-1). */
export const STANDARD_UIDS: ReadonlySet<string> = new Set(standardUids.uids);

const DICTIONARY = new Map<number, string>();
for (const [vr, tags] of Object.entries(PUBLIC_TAGS_BY_VR)) for (const t of tags) DICTIONARY.set(t, vr);

/** The VR the dictionary gives a public tag ("US|SS" for a choice), or undefined when unknown. */
export function dictionaryVr(tag: number): string | undefined {
  return (
    DICTIONARY.get(tag) ?? PUBLIC_REPEATING_TAGS.find(([value, mask]) => (tag & mask) >>> 0 === value)?.[2]
  );
}
