/**
 * What a connection can make, and the refusal of a submission that asks for anything else, before any
 * work: the app's submit handler and `scan2mesh submit` both call this, so a job that the connection
 * would refuse after minutes of packing and uploading is never created.
 */
import type { Capabilities } from '../../src-shared/contract.js';
import { AppError } from '../../src-shared/errors.js';
import type { ConnectionProfile } from '../../src-shared/profiles.js';
import type { SeriesSummary } from '../../src-shared/scans.js';
import {
  checkStructures,
  respell,
  structuresOf,
  type SpellName,
  type StructureVerdict,
} from '../../src-shared/structure-check.js';
import { STRUCTURES, structureInfo } from '../../src-shared/structures.js';
import type { Processor } from '../engine/processor.js';
import { LOCAL_STRUCTURES } from '../engine/segmentation/index.js';

/**
 * The engine whose capabilities these are: names it makes one at a time it may still refuse together
 * (skull and all_teeth merged in one mesh would be the skull's surface), so checkMeshes asks it about
 * each mesh as the job would have it. Held beside the capabilities, which travel as plain data.
 */
const engines = new WeakMap<Capabilities, Pick<Processor, 'validate' | 'checkScan'>>();

/**
 * A remote service is the authority on its names, so it accepts any; the local engine says itself
 * what it can do: its own job validation is asked about each catalogue name, as a job would ask it.
 */
export function connectionCapabilities(
  kind: ConnectionProfile['kind'],
  engine: Pick<Processor, 'validate' | 'describe' | 'checkScan'>,
): Capabilities {
  if (kind === 'remote') return { anyStructure: true, refused: [], notes: [] };
  const caps = localCapabilities(engine);
  engines.set(caps, engine);
  return caps;
}

function localCapabilities(engine: Pick<Processor, 'validate' | 'describe'>): Capabilities {
  const refused: Capabilities['refused'] = [];
  const notes: Capabilities['notes'] = [];
  for (const s of STRUCTURES) {
    const verdict = engine.validate({
      inputs: [{ name: 'cbct', extension: '.zip' }],
      meshes: [{ extension: '.stl', structures: [s.name] }],
    });
    if (verdict) refused.push({ name: s.name, reason: verdict });
    else {
      const note = engine.describe?.(s.name);
      if (note) notes.push({ name: s.name, note });
    }
  }
  // Names the engine makes that the service catalogue lacks (airway, soft tissue), for free entry.
  const extra = LOCAL_STRUCTURES.filter((name) => !structureInfo(name)).map((name) => ({
    name,
    note: engine.describe?.(name) ?? '',
  }));
  return { anyStructure: false, refused, notes, extra };
}

/**
 * The verdict on every structure of a job's meshes, and on each mesh as a whole: a mesh whose names
 * the engine makes one by one but refuses together is refused under its names joined by " + ".
 */
export function checkMeshes(
  meshes: readonly { structures: readonly string[]; extension?: string }[],
  caps: Capabilities,
  connectionName: string,
  spell?: SpellName,
): StructureVerdict {
  const verdict = checkStructures(structuresOf(meshes), caps, {
    connectionName,
    ...(spell ? { spell } : {}),
  });
  const engine = engines.get(caps);
  if (!engine) return verdict;
  const refusedNames = new Set(verdict.refused.map((r) => r.name));
  for (const m of meshes) {
    const names = [...new Set(m.structures)];
    // A name refused on its own has its reason already; one name alone was judged above.
    if (names.length < 2 || names.some((n) => refusedNames.has(n))) continue;
    const name = names.join(' + ');
    if (refusedNames.has(name)) continue;
    const why = engine.validate({
      inputs: [{ name: 'cbct', extension: '.zip' }],
      meshes: [{ extension: m.extension ?? '.stl', structures: names }],
    });
    if (why === null) continue;
    // The engine words it for a job ("Mesh 1: skull + all_teeth in one mesh ..."); beside the name that is noise.
    let reason = why.replace(/^Mesh 1: /, '');
    if (reason.startsWith(`${name} `)) reason = reason.slice(name.length + 1);
    verdict.refused.push({ name, reason: spell ? respell(reason, spell) : reason });
    refusedNames.add(name);
  }
  return verdict;
}

/** The refusal in words: each name it cannot make with its reason, then the names it can. */
function refusalMessage(verdict: StructureVerdict, connectionName: string): string {
  const lines = verdict.refused.map((r) => `${r.name}: ${r.reason}`);
  return `${connectionName} cannot make ${verdict.refused.map((r) => r.name).join(', ')}. ${lines.join(' ')}${
    verdict.accepted.length > 0 ? ` It can make ${verdict.accepted.join(', ')}.` : ''
  }`;
}

/**
 * Throws a bad-request AppError naming every structure (or mesh of structures) the connection
 * refuses and why; nothing was packed or sent when it does.
 */
/**
 * What the local engine refuses to make of this series, from its card's voxel size (teeth from slices
 * several millimetres apart), or null: said before it is packed, not when the engine reads it. A
 * remote service judges its own input.
 */
export function scanRefusalFor(
  meshes: readonly { structures: readonly string[] }[],
  caps: Capabilities,
  series: Pick<SeriesSummary, 'pixelSpacing' | 'gridStep' | 'previewable' | 'transferSyntax'>,
): string | null {
  const engine = engines.get(caps);
  if (!engine?.checkScan) return null;
  // A local job of images no decoder here reads failed after packing, blaming the images' fragments.
  if (!series.previewable)
    return `The local engine cannot decode these images (${series.transferSyntax.name}). Send the scan to a remote service, or export it again uncompressed.`;
  // pixelSpacing is in DICOM order (between rows, between columns): x is the column spacing.
  const [rows, columns] = series.pixelSpacing;
  // The volume's own step: thin slices through the jaws of an unevenly spaced scan make its grid.
  return engine.checkScan(structuresOf(meshes), [columns, rows, series.gridStep]);
}

export function refuseUnmakeable(
  meshes: readonly { structures: readonly string[]; extension?: string }[],
  caps: Capabilities,
  connectionName: string,
): void {
  const verdict = checkMeshes(meshes, caps, connectionName);
  if (verdict.refused.length === 0) return;
  throw new AppError('bad-request', refusalMessage(verdict, connectionName), {
    action: 'Leave those structures out, or send the scan to a remote service that makes them.',
  });
}
