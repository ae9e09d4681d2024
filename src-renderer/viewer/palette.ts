import { structureInfo } from '../../src-shared/structures.js';

/**
 * Colours by anatomy, chosen so that a clinician recognises a structure before reading its name:
 * the conventions of dental planning software (ivory bone, white enamel, yellow canal, blue air).
 */
export const CLINICAL_COLOURS = {
  bone: '#e3d7b8',
  teeth: '#f6f4ec',
  nerve: '#e8c62e',
  airway: '#4f93d6',
  sinus: '#7fb6c9',
  softTissue: '#d2a58c',
} as const;

/** For structures the palette does not know: muted, far apart in hue, none close to the clinical ones. */
export const FALLBACK_COLOURS = ['#8fa89a', '#a38cba', '#c48d7e', '#7f9cc0', '#a4a35f', '#b98aa6', '#6fa3a8'];

const NERVE = /(^|_)nerves?($|_)|canal/;

function colourForName(name: string): string | null {
  const n = name.toLowerCase();
  const group = structureInfo(n)?.group;
  if (group === 'bones') return CLINICAL_COLOURS.bone;
  if (group === 'teeth') return CLINICAL_COLOURS.teeth;
  if (group === 'nerves') return CLINICAL_COLOURS.nerve;
  // Names the catalogue does not list yet (service-notes: airway, soft tissue, sinuses exist).
  if (n.includes('airway')) return CLINICAL_COLOURS.airway;
  if (n.includes('sinus')) return CLINICAL_COLOURS.sinus;
  if (n.includes('soft') || n.includes('skin') || n.includes('tissue')) return CLINICAL_COLOURS.softTissue;
  if (/^(tooth\d{2}|teeth|dentition)$/.test(n)) return CLINICAL_COLOURS.teeth;
  if (NERVE.test(n)) return CLINICAL_COLOURS.nerve;
  if (/^(bone|cranium|mandible|maxilla|maxillary|skull)$/.test(n)) return CLINICAL_COLOURS.bone;
  return null;
}

/** The clinical colour of the first structure the palette knows, or null when none is known. */
export function colourForStructures(structures: readonly string[]): string | null {
  for (const s of structures) {
    const c = colourForName(s);
    if (c !== null) return c;
  }
  return null;
}

/**
 * Structure-like words of a file name ("case12_mandible.stl" -> ["case12", "mandible"]), so a
 * mesh opened from disk gets its clinical colour when its name says what it is.
 */
export function structureHintsFromFileName(fileName: string): string[] {
  const base = fileName.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '');
  const words = base.toLowerCase().split(/[^a-z0-9_]+/);
  // "all_teeth" is a catalogue name; "skull_bone" is two words: keep both the whole and its parts.
  return [...new Set(words.flatMap((w) => (w.includes('_') ? [w, ...w.split('_')] : [w])).filter(Boolean))];
}

/** The next fallback colour not already used in the scene (cycling when all are used). */
export function nextFallbackColour(used: readonly string[]): string {
  const taken = new Set(used.map((c) => c.toLowerCase()));
  const free = FALLBACK_COLOURS.find((c) => !taken.has(c));
  return free ?? FALLBACK_COLOURS[used.length % FALLBACK_COLOURS.length]!;
}
