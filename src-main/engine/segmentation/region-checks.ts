/**
 * Checks that the skin and the airway a threshold found are what their names say. Two names must
 * never be one surface: on the plastic skull phantom (no skin) "soft_tissue" was the skull's surface
 * again (87 % of its points within 1 mm of it) and "airway" the empty cranial cavity (593 cm³).
 */
import { AppError } from '../../../src-shared/errors.js';
import { axialPlaneTilt, type VoxelDirections } from './head-foot.js';

/**
 * Largest share of the skin's outer voxels that may be bone (the voxel or a neighbour inside above
 * the bone level). Real head CT 0 %, with 250 HU of noise added 14 %, with slices 7.5 mm apart 17 %;
 * the skull phantom 39 % (its outer voxels are partly air, so not all read as bone): there the
 * "skin" is the skull.
 */
const SKIN_MAX_BONE_SHARE = 0.3;

/**
 * Largest share of the tissue's outer voxels that may lie on the scan's cut faces rather than against
 * air. Real head CT (cut below the teeth) 24 %, its lower half 58 %; a 40 mm slab of it on the jaws
 * 73 % (a band of skin between two cut faces larger than it), crops inside the head 66 and 71 %: a
 * review measured the "skin" of those a tenth skin and a tenth the airway's walls, opened by the crop.
 * Beyond this the surface is mostly the box of the field of view, not skin.
 */
const SKIN_MAX_CUT_SHARE = 0.65;

/*
 * The edge of a round field of view (padding beyond it) counts as cut like the box's faces, and may
 * besides be no more of the surface than the skin is: a flat box face shows as the cut it is, while
 * the wall of the field of view's cylinder is a smooth round surface that passes for skin. The real
 * head CT padded outside a 50 mm radius: edge 51 %, skin 34 % of the outer voxels (a soft_tissue
 * whose area was 64 % the cylinder's wall); outside 75 mm: 34 % and 43 %; outside 100 mm: 9 % and 66 %.
 */

/**
 * Largest air space an airway can be: nasal cavity, sinuses and pharynx of an adult are 100-150 cm³
 * together (49 cm³ on the real head CT); the cranial cavity is 1200-1500 cm³.
 */
export const AIRWAY_MAX_CM3 = 250;

interface Grid {
  data: Int16Array | Float32Array;
  dims: [number, number, number];
  spacing: [number, number, number];
}

/**
 * Slices further apart than this are not "the voxel inside next to" the skin: at 7.5 mm (every 5th
 * slice of the real head CT) the slice above the scalp's edge is the skull, and 49 % of the real
 * skin counted as bone. Then only neighbours within the slice are looked at.
 */
const SKIN_NEAR_MM = 1.5;

/**
 * Refuses a skin surface that is bone or the scan's cut faces: the box's faces, and the edge of the
 * field of view where `pad` (padding outside it, fov-padding.ts) is set. `boneLevel` is null when the
 * scan shows no bone (then nothing can coincide with the skull).
 */
export function checkSkin(
  mask: Uint8Array,
  g: Grid,
  boneLevel: number | null,
  pad: Uint8Array | null = null,
): void {
  const [nx, ny, nz] = g.dims;
  const plane = nx * ny;
  const data = g.data;
  const bone = boneLevel ?? Infinity;
  const across = g.spacing[2] <= SKIN_NEAR_MM;
  let skin = 0;
  let cut = 0;
  let onBone = 0;
  /** Of `cut`, the voxels against padding: on the edge of a round field of view. */
  let fovEdge = 0;
  // Every second slice (and the last) is enough for shares, at half the cost; each interior slice
  // counted stands for two, the first and last slices (cut faces where tissue reaches them) for one.
  const slices: number[] = [];
  for (let k = 0; k < nz - 1; k += 2) slices.push(k);
  slices.push(nz - 1);
  for (const k of slices) {
    const w = k === 0 || k === nz - 1 ? 1 : 2;
    for (let j = 0; j < ny; j++) {
      const row = k * plane + j * nx;
      const edge = k === 0 || k === nz - 1 || j === 0 || j === ny - 1;
      for (let i = 0; i < nx; i++) {
        const p = row + i;
        if (mask[p] === 0) continue;
        if (edge || i === 0 || i === nx - 1) {
          cut += w;
          continue;
        }
        const a = mask[p - 1] as number;
        const b = mask[p + 1] as number;
        const c = mask[p - nx] as number;
        const d = mask[p + nx] as number;
        const e = mask[p - plane] as number;
        const f = mask[p + plane] as number;
        if ((a & b & c & d & e & f) !== 0) continue;
        // Against padding, the tissue is cut by the field of view's edge, as at the box's faces.
        if (
          pad &&
          (pad[p - 1] === 1 ||
            pad[p + 1] === 1 ||
            pad[p - nx] === 1 ||
            pad[p + nx] === 1 ||
            pad[p - plane] === 1 ||
            pad[p + plane] === 1)
        ) {
          cut += w;
          fovEdge += w;
          continue;
        }
        skin += w;
        // The outer voxel is partly air; the bone shows in it or in the voxel inside next to it.
        if (
          (data[p] as number) > bone ||
          (a !== 0 && (data[p - 1] as number) > bone) ||
          (b !== 0 && (data[p + 1] as number) > bone) ||
          (c !== 0 && (data[p - nx] as number) > bone) ||
          (d !== 0 && (data[p + nx] as number) > bone) ||
          (across && e !== 0 && (data[p - plane] as number) > bone) ||
          (across && f !== 0 && (data[p + plane] as number) > bone)
        )
          onBone += w;
      }
    }
  }
  const action =
    'Ask for skull for the bone surface; soft_tissue needs a scan of a head with skin and air around it.';
  if (skin > 0 && onBone / skin > SKIN_MAX_BONE_SHARE) {
    throw new AppError(
      'bad-input',
      `The outer surface of this scan's tissue is bone over ${Math.round((100 * onBone) / skin)} % of it: there is no soft tissue over the bone (as on a skull phantom), so soft_tissue would be the skull's surface under another name; no soft-tissue mesh was made.`,
      { action },
    );
  }
  if (fovEdge > skin) {
    const pct = (v: number): number => Math.round((100 * v) / (cut + skin));
    throw new AppError(
      'bad-input',
      `More of soft_tissue's surface would lie on the edge of the scan's round field of view (${pct(fovEdge)} %) than against air (${pct(skin)} %): beyond that edge the scan holds no image, only padding, so the surface would be the wall of the field of view rather than skin; no soft-tissue mesh was made.`,
      {
        action:
          'Ask for soft_tissue only on a scan whose field of view holds the skin with air around it (a larger field of view), or leave it out.',
      },
    );
  }
  if (cut / (cut + skin) > SKIN_MAX_CUT_SHARE) {
    throw new AppError(
      'bad-input',
      `Only ${Math.round((100 * skin) / (cut + skin))} % of soft_tissue's surface would lie against air; the rest is where the scan's field of view cuts through tissue, so it would be the scan's cut faces (the box of the scan${pad ? ', or the edge of its round field of view' : ''}) rather than skin; no soft-tissue mesh was made.`,
      { action },
    );
  }
}

/** Refuses an enclosed air space too large to be an airway. */
export function checkAirway(keptVoxels: number, spacing: readonly number[]): void {
  const cm3 = (keptVoxels * (spacing[0] as number) * (spacing[1] as number) * (spacing[2] as number)) / 1000;
  if (cm3 <= AIRWAY_MAX_CM3) return;
  throw new AppError(
    'bad-input',
    `The largest air space enclosed in this scan is ${Math.round(cm3)} cm³, more than an airway with the nasal cavity and sinuses holds (at most about ${AIRWAY_MAX_CM3} cm³): it is another cavity (on a skull phantom, the empty cranial cavity), so no airway mesh was made.`,
    { action: 'Ask for airway only on scans of a patient, or use a remote segmentation service.' },
  );
}

/**
 * Largest tilt of the planes enclosed air is found in from the patient's axial plane. On the real head
 * CT tilted 10° and 15° (a tilted gantry), the airway lost 2 and 3 of its 234 cm²; at 20°, 104: in
 * planes so tilted the nasal cavity opens to the air in front of the face, and the skin kept the
 * airway's walls (a review).
 */
const MAX_PLANE_TILT_DEG = 15;

/** Refuses the airway and the skin on planes too far from axial to find enclosed air in. */
export function refuseTiltedPlanes(volume: VoxelDirections, tissue: 'airway' | 'soft-tissue'): void {
  const tilt = axialPlaneTilt(volume);
  if (tilt <= MAX_PLANE_TILT_DEG) return;
  throw new AppError(
    'bad-input',
    `The scan's planes lie at ${Math.round(tilt)}° to the patient's axial plane (a tilted gantry or an oblique export); the airway and the skin are found from the air tissue encloses in axial planes, and in planes tilted more than ${MAX_PLANE_TILT_DEG}° the nasal cavity opens to the air in front of the face, so no ${tissue} mesh was made.`,
    {
      action: `Export the scan again in axial planes (most viewers can reformat a tilted scan), or leave ${tissue === 'airway' ? 'airway' : 'soft_tissue'} out.`,
    },
  );
}

/**
 * Most pieces of like size the bone of a head falls into: the skull, the jaw, a few vertebrae, the
 * hyoid; loose pieces under a tenth of the largest are dropped before (tissue.ts). A 3D checkerboard
 * or lattice at the bone level kept thousands of equal pieces, and came out as a "skull" of 4.5
 * million triangles (a review).
 */
const MAX_BONE_PIECES = 40;
/** ...when the largest of them holds less than this share of the bone kept. */
const BONE_LARGEST_MIN_SHARE = 0.25;

/** Refuses bone that is many pieces of like size, none of them most of it: a pattern, not a head. */
export function checkBonePieces(c: { kept: number; keptVoxels: number; largest: number }): void {
  const share = c.keptVoxels > 0 ? c.largest / c.keptVoxels : 1;
  if (c.kept <= MAX_BONE_PIECES || share >= BONE_LARGEST_MIN_SHARE) return;
  throw new AppError(
    'bad-input',
    `The voxels dense as bone in this scan form ${c.kept} separate pieces of like size, the largest only ${(share * 100).toFixed(1)} % of them: a head's bone is one large piece (the skull) with a few others, so this is a pattern (a test object, a grid or noise), not a skull, and no bone mesh was made.`,
    {
      action: 'Check that the scan is a CT or cone-beam CT of a head, or use a remote segmentation service.',
    },
  );
}
