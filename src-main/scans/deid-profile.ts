/**
 * What de-identification does with each attribute: DICOM PS3.15 Annex E, Basic Application Level
 * Confidentiality Profile, applied as a KEEP-list so that it is complete by construction.
 *
 * - Every attribute of Table E.1-1 (deid-table.generated.ts, generated from the standard's table)
 *   gets the table's action. Where the table leaves a choice, the strictest one is taken:
 *   anything offering X is removed (X/Z, X/D, X/Z/D, X/Z/U*); Z/D is emptied. PS3.15 allows X
 *   wherever the attribute is not Type 1/2 in the IOD; scan2mesh's receiver is a segmentation
 *   service, which reads pixels and geometry, not those attributes.
 * - Private attributes (odd groups, the table's last row), group lengths (stale after editing) and
 *   every attribute the PS3.6 dictionary does not know (deid-dictionary.generated.ts) are removed.
 * - Public attributes the table does not list are kept only when their value cannot carry a name
 *   or free text: numbers (US SS UL SL UV SV FL FD DS IS), tags (AT) and code strings (CS); pixel
 *   data and lookup tables; two named text attributes (Manufacturer, Manufacturer's Model Name).
 *   A UID the table does not list is kept when it is a standard UID (1.2.840.10008...: SOP
 *   classes, transfer syntaxes, coding schemes) and replaced otherwise. Their sequences are kept
 *   with each item filtered the same way (deidentify.ts drops them when nothing is left). Dates,
 *   times, person names and any text the table does not list (LO SH ST LT UT UC UR AE AS PN...)
 *   are removed: a vendor's free text is where identifying values hide.
 */
import {
  BASIC_PROFILE,
  BASIC_PROFILE_REPEATING,
  PUBLIC_REPEATING_TAGS,
  PUBLIC_TAGS_BY_VR,
} from './deid-tables.js';

/**
 * remove: leave out; empty: keep with a zero-length value (an empty sequence for SQ);
 * dummy: a value of the same VR that says nothing (D); uid: replace with a new UID, consistently
 * within one package (standard UIDs stay); keep: copy (a sequence: filter its items).
 */
type DeidDecision = 'remove' | 'empty' | 'dummy' | 'uid' | 'keep';

const TABLE = new Map<number, string>(BASIC_PROFILE.map(([tag, action]) => [tag, action]));

const DICTIONARY = new Map<number, string>();
for (const [vr, tags] of Object.entries(PUBLIC_TAGS_BY_VR)) for (const t of tags) DICTIONARY.set(t, vr);

function repeatingRow(tag: number): (typeof BASIC_PROFILE_REPEATING)[number] | undefined {
  return BASIC_PROFILE_REPEATING.find(([value, mask]) => (tag & mask) >>> 0 === value);
}

/** The VR the dictionary gives a public tag ("US|SS" for a choice), or undefined when unknown. */
export function dictionaryVr(tag: number): string | undefined {
  return (
    DICTIONARY.get(tag) ?? PUBLIC_REPEATING_TAGS.find(([value, mask]) => (tag & mask) >>> 0 === value)?.[2]
  );
}

/** Table E.1-1's action, alone or combined, as one decision (see the top of this file). */
export function decideAction(action: string): DeidDecision {
  const options = action.split('/').map((a) => a.replace('*', ''));
  if (options.includes('X')) return 'remove';
  if (options.includes('Z')) return 'empty';
  if (options.includes('U')) return 'uid';
  // C (clean) would need to understand the text; a dummy value is the safe stand-in.
  if (options.includes('D') || options.includes('C')) return 'dummy';
  if (options.includes('K')) return 'keep';
  return 'remove';
}

const NUMERIC_VRS = new Set(['US', 'SS', 'UL', 'SL', 'UV', 'SV', 'FL', 'FD', 'DS', 'IS', 'AT', 'CS']);

/** Public attributes outside the table whose value is not a number or code but is needed or harmless. */
const KEPT_OUTSIDE_TABLE = new Set([
  0x00080070, // Manufacturer: tells the reader which vendor quirks to expect
  0x00081090, // Manufacturer's Model Name
  0x00283006, // LUT Data
  0x00281201, // Red Palette Color Lookup Table Data
  0x00281202, // Green Palette Color Lookup Table Data
  0x00281203, // Blue Palette Color Lookup Table Data
  0x00281204, // Alpha Palette Color Lookup Table Data
  0x00281221, // Segmented Red Palette Color Lookup Table Data
  0x00281222, // Segmented Green Palette Color Lookup Table Data
  0x00281223, // Segmented Blue Palette Color Lookup Table Data
  0x7fe00001, // Extended Offset Table
  0x7fe00002, // Extended Offset Table Lengths
  0x7fe00008, // Float Pixel Data
  0x7fe00009, // Double Float Pixel Data
  0x7fe00010, // Pixel Data
]);

/** What to do with one attribute (tag as group << 16 | element), at any depth. */
export function deidDecision(tag: number): DeidDecision {
  const group = tag >>> 16;
  if (group % 2 === 1) return 'remove'; // private attributes and their creators
  if ((tag & 0xffff) === 0) return 'remove'; // group lengths would be wrong after editing
  const action = TABLE.get(tag);
  if (action) return decideAction(action);
  const repeating = repeatingRow(tag);
  if (repeating) return decideAction(repeating[2]);
  if (KEPT_OUTSIDE_TABLE.has(tag)) return 'keep';
  const vr = dictionaryVr(tag);
  if (vr === undefined) return 'remove'; // unknown to the dictionary: cannot tell what it holds
  if (vr === 'SQ') return 'keep';
  if (vr === 'UI') return 'uid';
  return vr.split('|').every((v) => NUMERIC_VRS.has(v)) ? 'keep' : 'remove';
}

/** A UID that names a standard thing (SOP class, transfer syntax...), not an instance or a site. */
export function isStandardUid(uid: string): boolean {
  return uid.startsWith('1.2.840.10008.');
}
