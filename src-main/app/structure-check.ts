/**
 * What a connection can make, and the refusal of a submission that asks for anything else, before any
 * work: the app's submit handler and `scan2mesh submit` both call this, so a job that the connection
 * would refuse after minutes of packing and uploading is never created.
 */
import type { Capabilities } from '../../src-shared/contract.js';
import { AppError } from '../../src-shared/errors.js';
import type { ConnectionProfile } from '../../src-shared/profiles.js';
import {
  checkStructures,
  structuresOf,
  type SpellName,
  type StructureVerdict,
} from '../../src-shared/structure-check.js';
import { STRUCTURES, structureInfo } from '../../src-shared/structures.js';
import type { Processor } from '../engine/processor.js';
import { LOCAL_STRUCTURES } from '../engine/segmentation/index.js';

/**
 * A remote service is the authority on its names, so it accepts any; the local engine says itself
 * what it can do: its own job validation is asked about each catalogue name, as a job would ask it.
 */
export function connectionCapabilities(
  kind: ConnectionProfile['kind'],
  engine: Pick<Processor, 'validate' | 'describe'>,
): Capabilities {
  if (kind === 'remote') return { anyStructure: true, refused: [], notes: [] };
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

/** The verdict on every structure of a job's meshes. */
export function checkMeshes(
  meshes: readonly { structures: readonly string[] }[],
  caps: Capabilities,
  connectionName: string,
  spell?: SpellName,
): StructureVerdict {
  return checkStructures(structuresOf(meshes), caps, { connectionName, ...(spell ? { spell } : {}) });
}

/** The refusal in words: each name it cannot make with its reason, then the names it can. */
function refusalMessage(verdict: StructureVerdict, connectionName: string): string {
  const lines = verdict.refused.map((r) => `${r.name}: ${r.reason}`);
  return `${connectionName} cannot make ${verdict.refused.map((r) => r.name).join(', ')}. ${lines.join(' ')}${
    verdict.accepted.length > 0 ? ` It can make ${verdict.accepted.join(', ')}.` : ''
  }`;
}

/**
 * Throws a bad-request AppError naming every structure the connection refuses and why; nothing was
 * packed or sent when it does.
 */
export function refuseUnmakeable(
  meshes: readonly { structures: readonly string[] }[],
  caps: Capabilities,
  connectionName: string,
): void {
  const verdict = checkMeshes(meshes, caps, connectionName);
  if (verdict.refused.length === 0) return;
  throw new AppError('bad-request', refusalMessage(verdict, connectionName), {
    action: 'Leave those structures out, or send the scan to a remote service that makes them.',
  });
}
