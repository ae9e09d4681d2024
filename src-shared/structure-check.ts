/**
 * Whether a connection can make the structures asked of it, decided from its capabilities before any
 * work starts (no packing, no upload, no job). One function for the app's submit handler, the command
 * line and the structure panel, so the three never disagree on what is refused and why.
 */
import type { Capabilities } from './contract.js';
import { STRUCTURES, structureInfo } from './structures.js';

export interface StructureRefusal {
  name: string;
  /** Why the connection cannot make it, in words. */
  reason: string;
}

export interface StructureVerdict {
  /** Each refused name once, in the order asked. */
  refused: StructureRefusal[];
  /** The names asked that the connection can make, each once, in the order asked. */
  accepted: string[];
}

/** How a name is written in a reason: the catalogue label in the UI, the name itself on the command line. */
export type SpellName = (name: string) => string;

const asIs: SpellName = (name) => name;

/** Whether a tooth, e.g. tooth36: several dozen of them are summed up as "single teeth". */
const isSingleTooth = (name: string): boolean => /^tooth\d\d$/.test(name);

/**
 * The names a connection that makes only a known list (the local engine) does make: the catalogue
 * minus what it refuses, plus its extra names; null when it accepts any name (a remote service).
 */
export function makeableNames(caps: Capabilities): string[] | null {
  if (caps.anyStructure) return null;
  const refused = new Set(caps.refused.map((r) => r.name));
  return [
    ...STRUCTURES.map((s) => s.name).filter((n) => !refused.has(n)),
    ...(caps.extra ?? []).map((e) => e.name),
  ];
}

/**
 * A reason as written by an engine names structures by id ("ask for all_teeth"); this writes each
 * catalogue id in it (those with _ or digits: plain words such as "mandible" stay words) as `spell` does.
 */
export function respell(text: string, spell: SpellName): string {
  return text.replace(/\b(?:[a-z]+(?:_[a-z0-9]+)+|tooth\d\d)\b/g, (id) =>
    structureInfo(id) ? spell(id) : id,
  );
}

/** "mandible, skull and airway" (single teeth summed up), for a reason. */
function listMakeable(names: readonly string[], spell: SpellName): string {
  const teeth = names.filter(isSingleTooth).length;
  // Two spellings of one structure (soft_tissue, soft-tissue) read the same in the UI: say it once.
  const words = [...new Set(names.filter((n) => !isSingleTooth(n)).map(spell))];
  if (teeth > 0) words.push('single teeth');
  if (words.length <= 1) return words[0] ?? 'nothing';
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/**
 * Sorts the names asked into those the connection refuses (with the reason) and those it makes.
 * A name the connection's capabilities list as refused takes their reason; on a connection that
 * makes only a known list, a name outside it is refused as unknown. Shorthands (all_teeth) are
 * judged as the connection judges them, as one name: the local engine makes the whole dentition
 * even though it cannot separate single teeth.
 */
export function checkStructures(
  names: readonly string[],
  caps: Capabilities,
  opts: { connectionName: string; spell?: SpellName },
): StructureVerdict {
  const spell = opts.spell ?? asIs;
  const reasons = new Map(caps.refused.map((r) => [r.name, r.reason]));
  const makeable = makeableNames(caps);
  const known = makeable ? new Set(makeable) : null;
  const verdict: StructureVerdict = { refused: [], accepted: [] };
  for (const name of new Set(names)) {
    const reason = reasons.get(name);
    // Engines word a reason as "tooth11: why"; beside the name that prefix is noise.
    if (reason !== undefined)
      verdict.refused.push({
        name,
        reason: respell(
          reason.startsWith(`${name}:`) ? reason.slice(name.length + 1).trimStart() : reason,
          spell,
        ),
      });
    else if (known && !known.has(name))
      // Only a name outside the catalogue gets here: every catalogue name is in caps or makeable.
      verdict.refused.push({
        name,
        reason: `Not a name ${opts.connectionName} knows; it makes ${listMakeable(makeable ?? [], spell)}.`,
      });
    else verdict.accepted.push(name);
  }
  return verdict;
}

/** Every structure of a job's meshes, each once, in order. */
export function structuresOf(meshes: readonly { structures: readonly string[] }[]): string[] {
  return [...new Set(meshes.flatMap((m) => m.structures))];
}
