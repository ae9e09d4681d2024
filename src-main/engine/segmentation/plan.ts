/**
 * What the local engine can honestly do with each structure name, decided at job creation: every
 * structure maps to a tissue class that a grey-value threshold finds, or the job is refused with a
 * message that names what cannot be done and what to do instead.
 *
 * One name per surface: a threshold cannot tell the mandible from the maxilla and the skull (they
 * are one bone class), nor permanent from deciduous teeth, so those names are refused rather than
 * answered with the same surface as skull or all_teeth. A single tooth (tooth11 ...) is refused
 * even though it lies inside the dentition: asking for one tooth means wanting it as a separate
 * object, which needs a real segmentation model.
 */
import { AppError } from '../../../src-shared/errors.js';
import { DECIDUOUS_TEETH, PERMANENT_TEETH, SHORTHANDS } from '../../../src-shared/structures.js';
import type { MeshRequest } from '../processor.js';
import { DENTITION_MIN_HU } from './dentition.js';
import { isMeshFormat, MESH_FORMATS } from './mesh-formats.js';
import type { Tissue } from './tissue.js';

/**
 * Structure name -> tissue class and the `options` group of the real service that configures it.
 * Soft tissue is `soft_tissue`: the service's structure names use underscores (all_teeth,
 * left_nerve, all_permanent_teeth) and its option groups hyphens (maxillary-complex, soft-tissue).
 */
const SUPPORTED: Record<string, { tissue: Tissue; group: string }> = {
  skull: { tissue: 'bone', group: 'skull' },
  all_teeth: { tissue: 'teeth', group: 'dentition' },
  airway: { tissue: 'airway', group: 'airway' },
  soft_tissue: { tissue: 'soft-tissue', group: 'soft-tissue' },
};

/** Names the engine knows but will not answer, because its answer would be another name's surface. */
const SAME_AS_ANOTHER: Record<string, string> = {
  all_permanent_teeth:
    'all_permanent_teeth: the local engine cannot tell permanent from deciduous teeth, so this would be the same surface as all_teeth; ask for all_teeth.',
  'soft-tissue':
    'soft-tissue: the local engine names the skin surface soft_tissue (soft-tissue is the name of its options group); ask for soft_tissue.',
};

/** Bones that a threshold finds only together, as one surface: the engine offers them as skull. */
const JOINED_BONES = new Set(['mandible', 'maxillary']);

export const LOCAL_STRUCTURES: readonly string[] = Object.keys(SUPPORTED);

const NERVES = new Set(['left_nerve', 'right_nerve', ...(SHORTHANDS.all_nerves ?? []), 'all_nerves']);
const SINGLE_TEETH = new Set([...PERMANENT_TEETH, ...DECIDUOUS_TEETH]);

const CBCT_EXTENSIONS = ['.dcm', '.zip', '.dcm.gz', '.zip.gz'] as const;
export type CbctExtension = (typeof CBCT_EXTENSIONS)[number];
const REMOTE_ONLY_FORMATS = ['.nii', '.nrrd', '.vti'];

export function tissueOf(structure: string): Tissue | undefined {
  return SUPPORTED[structure]?.tissue;
}

function optionGroupOf(structure: string): string | undefined {
  return SUPPORTED[structure]?.group;
}

const list = (names: string[]): string => names.join(', ');

/** The 400 message for a job this engine cannot do, or null when it can. */
export function validateSpec(spec: {
  inputs: { name: string; extension: string }[];
  meshes: MeshRequest[];
}): string | null {
  const problems: string[] = [];
  const cbct = spec.inputs.find((i) => i.name === 'cbct');
  const others = spec.inputs.filter((i) => i.name !== 'cbct').map((i) => i.name);
  if (others.length > 0) {
    problems.push(
      `The local engine reads only a CBCT scan (input "cbct"); ${list(others)} needs a remote segmentation service.`,
    );
  }
  if (!cbct) problems.push('The job has no "cbct" input: the local engine needs a CBCT scan.');
  else {
    const ext = cbct.extension.toLowerCase();
    if (!(CBCT_EXTENSIONS as readonly string[]).includes(ext)) {
      const base = ext.replace(/\.gz$/, '');
      problems.push(
        REMOTE_ONLY_FORMATS.includes(base)
          ? `The local engine reads DICOM only (.dcm, .zip of slices, each also .gz); "${cbct.extension}" is read by the remote service only: export the scan as DICOM or use a remote connection.`
          : `Input extension "${cbct.extension}" is not supported: the local engine reads ${list([...CBCT_EXTENSIONS])}.`,
      );
    }
  }
  if (spec.meshes.length === 0) problems.push('The job asks for no mesh.');
  const nerves = new Set<string>();
  const bones = new Set<string>();
  const same = new Set<string>();
  const teeth = new Set<string>();
  const sinus = new Set<string>();
  const unknown = new Set<string>();
  for (const [i, m] of spec.meshes.entries()) {
    if (!isMeshFormat(m.extension.toLowerCase())) {
      problems.push(
        `Mesh ${i + 1}: extension "${m.extension}" is not supported; use ${list([...MESH_FORMATS])}.`,
      );
    }
    if (m.structures.length === 0) problems.push(`Mesh ${i + 1} names no structure.`);
    const merged = nestedMerge(m.structures);
    if (merged) problems.push(`Mesh ${i + 1}: ${merged}`);
    for (const s of m.structures) {
      if (SUPPORTED[s]) continue;
      if (JOINED_BONES.has(s)) bones.add(s);
      else if (SAME_AS_ANOTHER[s]) same.add(s);
      else if (NERVES.has(s)) nerves.add(s);
      else if (SINGLE_TEETH.has(s)) teeth.add(s);
      else if (s.includes('sinus')) sinus.add(s);
      else unknown.add(s);
    }
  }
  if (bones.size > 0) {
    problems.push(
      `${list([...bones])}: the local engine cannot separate the mandible from the maxilla and the skull (a threshold finds all bone as one); ask for skull (all bone) or use a remote segmentation service.`,
    );
  }
  for (const s of same) problems.push(SAME_AS_ANOTHER[s] as string);
  if (nerves.size > 0) {
    problems.push(
      `${list([...nerves])}: the mandibular canals cannot be found by grey-value thresholds; they need a remote segmentation service.`,
    );
  }
  if (teeth.size > 0) {
    problems.push(
      `${list([...teeth])}: separate teeth need a remote segmentation service; the local engine gives the dentition as a whole (ask for all_teeth).`,
    );
  }
  if (sinus.size > 0) {
    problems.push(
      `${list([...sinus])}: the maxillary sinuses cannot be told apart from the rest of the airway by thresholds; they need a remote segmentation service (the local engine offers "airway").`,
    );
  }
  if (unknown.size > 0) {
    problems.push(
      `Unknown structure ${list([...unknown])}: the local engine knows ${list([...LOCAL_STRUCTURES])}.`,
    );
  }
  return problems.length > 0 ? problems.join(' ') : null;
}

/**
 * Bone, teeth and soft tissue are nested (teeth inside the bone surface, bone inside the skin), so a
 * mesh that merges two of them would be the outer one's surface under another name: refused, with
 * the reason. Airway is extracted on its own and can join any of them.
 */
function nestedMerge(structures: string[]): string | null {
  const dense = [...new Set(structures)].filter((s) => {
    const t = SUPPORTED[s]?.tissue;
    return t !== undefined && t !== 'airway';
  });
  if (dense.length < 2) return null;
  return `${dense.join(' + ')} in one mesh would be just the outermost surface (the teeth lie inside the bone surface, the bone inside the skin); ask for each as a mesh of its own.`;
}

export interface MeshSettings {
  /** Maximum deviation in mm allowed to the simplifier; 0 = no simplification. */
  decimateMaxError: number;
  /** Taubin smoothing iterations; 0 = none. */
  smoothingIterations: number;
}

const DEFAULT_SETTINGS: MeshSettings = { decimateMaxError: 0.1, smoothingIterations: 5 };

/**
 * Settings of one mesh from the job's `options`, keyed by the real service's groups (mandible,
 * maxillary-complex, skull, dentition, airway, soft-tissue) or by structure name. A mesh that merges
 * several groups takes the most careful value of each (smallest error, fewest iterations).
 */
export function meshSettings(structures: string[], options: Record<string, unknown>): MeshSettings {
  const each = structures.map((s) => structureSettings(s, options));
  if (each.length === 0) return { ...DEFAULT_SETTINGS };
  return {
    decimateMaxError: Math.min(...each.map((e) => e.decimateMaxError)),
    smoothingIterations: Math.min(...each.map((e) => e.smoothingIterations)),
  };
}

/** One structure's settings: defaults, overridden by its service group, overridden by its own name. */
function structureSettings(structure: string, options: Record<string, unknown>): MeshSettings {
  const out = { ...DEFAULT_SETTINGS };
  for (const key of new Set([optionGroupOf(structure), structure])) {
    if (key === undefined) continue;
    const group = options[key];
    if (group === undefined) continue;
    if (group === null || typeof group !== 'object' || Array.isArray(group)) {
      throw badOption(`options.${key} must be an object such as { "decimateMaxError": 0.1 }.`);
    }
    const g = group as Record<string, unknown>;
    const d = g.decimateMaxError;
    if (d !== undefined) {
      if (typeof d !== 'number' || !Number.isFinite(d) || d < 0 || d > 10) {
        throw badOption(
          `options.${key}.decimateMaxError must be a number of mm from 0 to 10 (0 = no decimation).`,
        );
      }
      out.decimateMaxError = d;
    }
    const it = g.smoothingIterations;
    if (it !== undefined) {
      if (typeof it !== 'number' || !Number.isInteger(it) || it < 0 || it > 100) {
        throw badOption(`options.${key}.smoothingIterations must be a whole number from 0 to 100.`);
      }
      out.smoothingIterations = it;
    }
  }
  return out;
}

function badOption(message: string): AppError {
  return new AppError('bad-request', message, { action: 'Correct the job options and submit again.' });
}

const DESCRIPTIONS: Record<string, string> = {
  skull: 'all bone as one surface: skull, maxilla and mandible (when in the scan) together, teeth included',
  all_teeth: `enamel and dentine as one dentition (on calibrated CT above ${DENTITION_MIN_HU} HU, on CBCT that level scaled by the scan's air and soft-tissue values), teeth not separated; only pieces joined to bone that hold enamel (denser than any compact bone) or lie beside or level with one that does, in the jaws below the skull; fillings and the densest bone joined to teeth may be included`,
  airway:
    'the largest air space enclosed by tissue in the axial planes of the patient, with the nasal cavity and sinuses joined to it (refused when larger than an airway can be)',
  soft_tissue:
    "skin surface (air against tissue), air spaces inside the head filled (refused where that surface is bone, with no tissue over it, or mostly the scan's cut faces or the edge of its round field of view)",
};

/** What the engine does for a structure it accepts, in words for the UI; undefined for the others. */
export function describeStructure(structure: string): string | undefined {
  return DESCRIPTIONS[structure];
}

/** The same with the structure's name in front, for the job result: "mandible: bone surface, ...". */
export function structureNote(structure: string): string {
  return `${structure}: ${describeStructure(structure) ?? 'not segmented by the local engine'}`;
}
