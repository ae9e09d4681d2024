/**
 * The catalogue of anatomical structures known so far (service-notes.md). The service is the
 * authority: free entry of other names stays possible everywhere.
 */
export type StructureGroup = 'bones' | 'nerves' | 'teeth' | 'other';

export interface StructureInfo {
  name: string;
  label: string;
  group: StructureGroup;
}

const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** FDI quadrants: permanent 1-4 with teeth 1-8, deciduous 5-8 with teeth 1-5. */
export const PERMANENT_TEETH: string[] = [1, 2, 3, 4].flatMap((q) => range(1, 8).map((t) => `tooth${q}${t}`));
export const DECIDUOUS_TEETH: string[] = [5, 6, 7, 8].flatMap((q) => range(1, 5).map((t) => `tooth${q}${t}`));

export const SHORTHANDS: Record<string, string[]> = {
  all_nerves: ['left_nerve', 'right_nerve'],
  all_permanent_teeth: PERMANENT_TEETH,
  all_teeth: [...PERMANENT_TEETH, ...DECIDUOUS_TEETH],
};

const QUADRANT_NAMES: Record<string, string> = {
  '1': 'upper right',
  '2': 'upper left',
  '3': 'lower left',
  '4': 'lower right',
  '5': 'upper right deciduous',
  '6': 'upper left deciduous',
  '7': 'lower left deciduous',
  '8': 'lower right deciduous',
};

export const STRUCTURES: StructureInfo[] = [
  { name: 'mandible', label: 'Mandible', group: 'bones' },
  { name: 'maxillary', label: 'Maxilla', group: 'bones' },
  { name: 'skull', label: 'Skull', group: 'bones' },
  { name: 'left_nerve', label: 'Left mandibular canal', group: 'nerves' },
  { name: 'right_nerve', label: 'Right mandibular canal', group: 'nerves' },
  { name: 'all_nerves', label: 'Both mandibular canals', group: 'nerves' },
  { name: 'all_teeth', label: 'All teeth', group: 'teeth' },
  { name: 'all_permanent_teeth', label: 'All permanent teeth', group: 'teeth' },
  ...[...PERMANENT_TEETH, ...DECIDUOUS_TEETH].map((name) => ({
    name,
    label: `Tooth ${name.slice(5)} (${QUADRANT_NAMES[name.charAt(5)] ?? ''})`,
    group: 'teeth' as const,
  })),
];

const KNOWN = new Map(STRUCTURES.map((s) => [s.name, s]));

export function structureInfo(name: string): StructureInfo | undefined {
  return KNOWN.get(name);
}

/**
 * A structure's name for people: its label when known, else the service's name made readable
 * (`soft_tissue` as "Soft tissue"), not the identifier as sent.
 */
export function structureDisplayName(name: string): string {
  const known = KNOWN.get(name)?.label;
  if (known) return known;
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Structure names are lower-case identifiers; anything else is almost certainly a typo. */
export const STRUCTURE_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;

/** Splits "mandible,left_nerve" into names, trimmed, without empties or duplicates. */
export function parseStructureList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

export interface StructurePreset {
  id: string;
  label: string;
  structures: string[];
}

export const PRESETS: StructurePreset[] = [
  { id: 'implant-planning', label: 'Implant planning', structures: ['mandible', 'all_nerves', 'all_teeth'] },
  { id: 'orthodontics', label: 'Orthodontics', structures: ['mandible', 'maxillary', 'all_teeth'] },
  { id: 'bone-only', label: 'Bone only', structures: ['mandible', 'maxillary'] },
  // What a threshold can honestly make: the one preset the built-in local engine accepts in full.
  { id: 'skull-and-teeth', label: 'Skull and teeth', structures: ['skull', 'all_teeth'] },
];
