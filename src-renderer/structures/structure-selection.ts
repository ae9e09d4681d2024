import type { Capabilities } from '../../src-shared/contract';
import type { MeshChoice } from '../../src-shared/jobs';
import { checkStructures, type StructureRefusal } from '../../src-shared/structure-check';
import { SHORTHANDS, STRUCTURE_NAME_PATTERN, structureInfo } from '../../src-shared/structures';

/**
 * The structure choice as pure functions over a list of names (catalogue names, shorthands and names
 * typed by the user), so the picker, the tooth chart and the submit panel agree on one meaning.
 */

export type MeshMode = 'separate' | 'merged';
export type MeshExtension = MeshChoice['extension'];

/** Limits of one job request (SubmitJobsRequestSchema, MeshChoiceSchema). */
const MAX_MESHES = 32;
const MAX_STRUCTURES_PER_MESH = 64;

function shorthandsCovering(name: string, chosen: readonly string[]): string[] {
  return chosen.filter((c) => SHORTHANDS[c]?.includes(name));
}

/** Whether a name is chosen itself or through a shorthand that includes it. */
export function isCovered(name: string, chosen: readonly string[]): boolean {
  return chosen.includes(name) || shorthandsCovering(name, chosen).length > 0;
}

export function toggleName(chosen: readonly string[], name: string): string[] {
  return chosen.includes(name) ? chosen.filter((c) => c !== name) : [...chosen, name];
}

/**
 * Clicking one tooth: adds it, or removes it. A tooth chosen through a shorthand ("All teeth") is
 * removed by replacing the shorthand with its other members, so the rest of the choice stays as it was.
 */
export function toggleTooth(chosen: readonly string[], tooth: string): string[] {
  if (chosen.includes(tooth)) return chosen.filter((c) => c !== tooth);
  const covering = shorthandsCovering(tooth, chosen);
  if (covering.length === 0) return [...chosen, tooth];
  const kept = chosen.filter((c) => !covering.includes(c));
  const members = covering.flatMap((s) => SHORTHANDS[s] ?? []);
  const added = [...new Set(members)].filter((m) => m !== tooth && !isCovered(m, kept));
  return [...kept, ...added];
}

/**
 * The meshes a job asks for: one file per chosen name, or every name merged into one file.
 * Returns the reason when the choice cannot be sent as it is.
 */
export function planMeshes(
  chosen: readonly string[],
  mode: MeshMode,
  extension: MeshExtension,
): { meshes: MeshChoice[] } | { problem: string } {
  if (chosen.length === 0) return { problem: 'Choose at least one structure.' };
  if (mode === 'merged') {
    if (chosen.length > MAX_STRUCTURES_PER_MESH)
      return {
        problem: `One merged file can hold at most ${MAX_STRUCTURES_PER_MESH} structures; use a shorthand such as “All teeth” instead of single teeth.`,
      };
    return { meshes: [{ structures: [...chosen], extension }] };
  }
  if (chosen.length > MAX_MESHES)
    return {
      problem: `A job can make at most ${MAX_MESHES} separate files; you chose ${chosen.length}. Merge them into one file, or use a shorthand such as “All teeth”.`,
    };
  return { meshes: chosen.map((name) => ({ structures: [name], extension })) };
}

type Refusal = StructureRefusal;

/**
 * The chosen names the connection is known not to produce, each with the reason in words: the same
 * check the submit handler and the command line make (src-shared/structure-check.ts), worded with
 * the catalogue's labels. Nothing is refused before the capabilities are known.
 */
export function refusedChoices(
  chosen: readonly string[],
  caps: Capabilities | null,
  connectionName: string,
): Refusal[] {
  if (!caps) return [];
  return checkStructures(chosen, caps, { connectionName, spell: structureLabel }).refused;
}

/** Checks a name typed by the user; returns the message to show, or null when it can be added. */
export function checkFreeName(text: string, chosen: readonly string[]): string | null {
  const name = text.trim();
  if (!name) return 'Type a structure name, e.g. airway.';
  if (!STRUCTURE_NAME_PATTERN.test(name)) {
    const suggestion = name
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '_')
      .replace(/^[^a-z]+/, '')
      .slice(0, 64);
    return `Structure names are lower-case letters, digits, _ or -, starting with a letter${
      suggestion ? ` (e.g. ${suggestion})` : ''
    }.`;
  }
  const key = structureKey(name);
  const same = chosen.find((c) => structureKey(c) === key);
  if (isCovered(name, chosen) || same !== undefined)
    return `${structureLabel(same ?? name)} is already chosen.`;
  return null;
}

/**
 * The label a person reads for a name: the catalogue's, or for a name beyond it (an engine's airway,
 * a typed name) the name in words: soft_tissue -> "Soft tissue".
 */
export function structureLabel(name: string): string {
  const known = structureInfo(name)?.label;
  if (known) return known;
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Spellings of one structure (soft_tissue, soft-tissue) share this key, so it is listed once. */
export function structureKey(name: string): string {
  return name.replace(/-/g, '_');
}

/** Connections word their notes as "mandible: what it does"; beside the name itself the prefix is noise. */
export function withoutNamePrefix(name: string, text: string): string {
  return text.startsWith(`${name}:`) ? text.slice(name.length + 1).trimStart() : text;
}
