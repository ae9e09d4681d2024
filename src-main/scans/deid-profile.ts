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
 * - Public attributes the table does not list are kept only when their value cannot carry a name or
 *   free text: the numbers and tags (US SS UL SL UV SV FL FD DS IS AT) a CT is read by (NUMBERS_KEPT),
 *   pixel data, and the codes an image is read by (CS, and Rescale Type: defined terms under VR LO),
 *   each only as one of its defined terms (deid-values.ts KEPT_CODE_TAGS: a code string is any 16
 *   characters, enough for a name or a record number). Every kept value is checked against its VR (deid-values.ts). Specific Character Set
 *   goes: no text is kept, and the character set says where a scan was made. Overlays and curves
 *   (groups 60xx, 50xx) are drawn text and graphics and go whole; the patient group (0010) outside
 *   the table goes too (patient characteristics such as the BMI). A UID the table does not list is
 *   replaced; only the attributes that name a SOP class, transfer syntax or coding scheme keep a
 *   standard one (1.2.840.10008...): anywhere else a UID under the DICOM root is as much an
 *   instance's as any other. Sequences are kept with each item filtered the same way (deidentify.ts
 *   drops them when nothing is left). Dates, times, person names and any text the table does not
 *   list (LO SH ST LT UT UC UR AE AS PN...) are removed: a vendor's free text is where identifying
 *   values hide, and that includes Manufacturer and Manufacturer's Model Name.
 */
import { KEPT_CODE_TAGS } from './deid-values.js';
import { BASIC_PROFILE, BASIC_PROFILE_REPEATING, dictionaryVr, STANDARD_UIDS } from './deid-tables.js';

/**
 * remove: leave out; empty: keep with a zero-length value (an empty sequence for SQ);
 * dummy: a value of the same VR that says nothing (D); uid: replace with a new UID, consistently
 * within one package (class UIDs stay, keepsUid); keep: copy once its value is checked
 * (deid-values.ts; a sequence: filter its items).
 */
type DeidDecision = 'remove' | 'empty' | 'dummy' | 'uid' | 'keep';

const TABLE = new Map<number, string>(BASIC_PROFILE.map(([tag, action]) => [tag, action]));

function repeatingRow(tag: number): (typeof BASIC_PROFILE_REPEATING)[number] | undefined {
  return BASIC_PROFILE_REPEATING.find(([value, mask]) => (tag & mask) >>> 0 === value);
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

const NUMERIC_VRS = new Set(['US', 'SS', 'UL', 'SL', 'UV', 'SV', 'FL', 'FD', 'DS', 'IS', 'AT']);

/**
 * The one public attribute outside the table whose value is not a number but the image needs. Lookup
 * tables (LUT Data, palettes) are bytes of any meaning and any length: a review found 80 KB of a
 * name kept as LUT Data in a functional group. A CT's values need none: one mapped by a Modality
 * LUT is refused before it is packed (deidentify.ts refuses it too), a PALETTE COLOR image as well.
 */
const KEPT_OUTSIDE_TABLE = new Set([
  0x7fe00010, // Pixel Data
]);

/**
 * Display settings outside the table that a segmentation does not read and that hold tables of any
 * bytes: VOI LUT, Softcopy VOI LUT and Presentation LUT Sequences.
 */
const REMOVED_OUTSIDE_TABLE = new Set([0x00283010, 0x00283110, 0x20500010]);

/**
 * The numbers kept outside the table: those a CT is read by (its pixels' layout, where its slices lie,
 * its value scale, how the frames of an Enhanced CT are found). Any other number is room for
 * anything: eight bytes of a double are "LEAKMARK" (a review found a name kept as an exposure
 * value, and one packed into Table of Y Break Points); a segmentation reads none of them. Kept ones
 * that could hold any number are bounded or replaced (deid-values.ts): In-Stack Position Number
 * counts at most the frames; Series Number goes out as 1. Left out, as a review found digits of an
 * identity kept in them: Window Center and Width (how a viewer first shows the image, read by no
 * segmentation), and Pixel Aspect Ratio (needed only without Pixel Spacing, Type 1 for a CT; the
 * reader, header-fields.ts, takes the pixels' shape from Pixel Spacing alone), and Slice Location
 * (a vendor's number along the stack that nothing reads: Image Position says where a slice lies).
 * Instance Number is written as the file's place in the package (deidentify.ts).
 */
const NUMBERS_KEPT: ReadonlySet<number> = new Set([
  0x00180050, // Slice Thickness
  0x00180088, // Spacing Between Slices
  0x00200011, // Series Number (sent as 1)
  0x00200013, // Instance Number
  0x00200032, // Image Position (Patient)
  0x00200037, // Image Orientation (Patient)
  0x00209057, // In-Stack Position Number (at most the frame count)
  0x00209157, // Dimension Index Values (Type 1C with a Dimension Index Sequence; each at most the frames)
  0x00209165, // Dimension Index Pointer
  0x00209167, // Functional Group Pointer
  0x00280002, // Samples per Pixel
  0x00280006, // Planar Configuration
  0x00280008, // Number of Frames
  0x00280009, // Frame Increment Pointer
  0x00280010, // Rows
  0x00280011, // Columns
  0x00280030, // Pixel Spacing
  0x00280100, // Bits Allocated
  0x00280101, // Bits Stored
  0x00280102, // High Bit
  0x00280103, // Pixel Representation
  0x00280120, // Pixel Padding Value
  0x00280121, // Pixel Padding Range Limit
  0x00281052, // Rescale Intercept
  0x00281053, // Rescale Slope
  0x3004000c, // Grid Frame Offset Vector (where the frames of an RT-dose-style file lie)
]);

/** What to do with one attribute (tag as group << 16 | element), at any depth. */
export function deidDecision(tag: number): DeidDecision {
  if (REMOVED_OUTSIDE_TABLE.has(tag)) return 'remove';
  const group = tag >>> 16;
  if (group % 2 === 1) return 'remove'; // private attributes and their creators
  if ((tag & 0xffff) === 0) return 'remove'; // group lengths would be wrong after editing
  if ((group & 0xff00) === 0x6000 || (group & 0xff00) === 0x5000) return 'remove'; // overlays, curves
  const action = TABLE.get(tag);
  if (action) return decideAction(action);
  const repeating = repeatingRow(tag);
  if (repeating) return decideAction(repeating[2]);
  // Graphic and text annotations the table does not list (polylines draw a name as an overlay does).
  if (group === 0x0070) return 'remove';
  if (KEPT_OUTSIDE_TABLE.has(tag) || KEPT_CODE_TAGS.has(tag)) return 'keep';
  if (group === 0x0010) return 'remove'; // the patient: their characteristics (BMI...) are theirs
  const vr = dictionaryVr(tag);
  if (vr === undefined) return 'remove'; // unknown to the dictionary: cannot tell what it holds
  if (vr === 'SQ') return 'keep';
  if (vr === 'UI') return 'uid';
  return vr.split('|').every((v) => NUMERIC_VRS.has(v)) && NUMBERS_KEPT.has(tag) ? 'keep' : 'remove';
}

/** Attributes whose UID names a kind of thing (SOP class, transfer syntax, coding scheme), not an instance. */
const CLASS_UID_TAGS = new Set([
  0x00020002, // Media Storage SOP Class UID
  0x00020010, // Transfer Syntax UID
  0x00041510, // Referenced SOP Class UID in File
  0x00041512, // Referenced Transfer Syntax UID in File
  0x0004151a, // Referenced Related General SOP Class UID in File
  0x00080016, // SOP Class UID
  0x0008001a, // Related General SOP Class UID
  0x0008001b, // Original Specialized Equivalent SOP Class UID
  0x00080062, // SOP Classes in Study
  0x0008010c, // Coding Scheme UID
  0x00080118, // Mapping Resource UID
  0x00081150, // Referenced SOP Class UID
]);

/**
 * Whether a UID stays as it is: one the standard defines (a SOP class, transfer syntax or coding
 * scheme) in an attribute that names one. Anywhere else it is replaced like any UID: the DICOM
 * root says nothing about whose instance a UID names. Not any UID under the standard's root: digits
 * after it carry anything ("1.2.840.10008.19650312.4711815"), as a name did before the syntax was
 * checked ("1.2.840.10008.DOE^JOHN"). A class newer than the table is replaced too.
 */
export function keepsUid(tag: number, uid: string): boolean {
  return CLASS_UID_TAGS.has(tag) && STANDARD_UIDS.has(uid);
}
