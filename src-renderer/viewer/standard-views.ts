/**
 * Anatomical views in the patient coordinate system the meshes use: DICOM LPS, millimetres
 * (+x patient Left, +y Posterior, +z Superior). The camera always keeps +z as its orbit axis,
 * so dragging turns the head like a turntable; superior and inferior views sit a hair off the
 * pole, on the side that puts anterior at the top of the screen.
 */
export type StandardView = 'anterior' | 'posterior' | 'left' | 'right' | 'superior' | 'inferior';

export type Vec3 = [number, number, number];

interface ViewDefinition {
  label: string;
  /** Unit vector from the target towards the camera. */
  from: Vec3;
  /** The patient direction that points up on the screen. */
  screenUp: Vec3;
  /** Keyboard shortcut (digits, like common CAD and dental viewers). */
  key: string;
}

export const STANDARD_VIEWS: Record<StandardView, ViewDefinition> = {
  anterior: { label: 'Anterior', from: [0, -1, 0], screenUp: [0, 0, 1], key: '1' },
  posterior: { label: 'Posterior', from: [0, 1, 0], screenUp: [0, 0, 1], key: '2' },
  left: { label: 'Left', from: [1, 0, 0], screenUp: [0, 0, 1], key: '3' },
  right: { label: 'Right', from: [-1, 0, 0], screenUp: [0, 0, 1], key: '4' },
  superior: { label: 'Superior', from: [0, 0, 1], screenUp: [0, -1, 0], key: '5' },
  inferior: { label: 'Inferior', from: [0, 0, -1], screenUp: [0, -1, 0], key: '6' },
};

export const VIEW_ORDER: StandardView[] = ['anterior', 'posterior', 'left', 'right', 'superior', 'inferior'];

/** The camera's world up: the orbit axis, patient superior. */
export const WORLD_UP: Vec3 = [0, 0, 1];

/** How far off the pole the superior/inferior cameras sit (radians): invisible, but it fixes the roll. */
const POLE_OFFSET = 1e-4;

/**
 * Direction from target to camera for a view. Looking along the up axis, lookAt cannot tell which
 * way is up on screen; nudging the camera opposite to the wanted screen-up (from above) or along
 * it (from below) makes the projection of +z onto the screen point the wanted way.
 */
export function cameraDirection(view: StandardView): Vec3 {
  const { from, screenUp } = STANDARD_VIEWS[view];
  const along = from[0] * WORLD_UP[0] + from[1] * WORLD_UP[1] + from[2] * WORLD_UP[2];
  const s = -along * POLE_OFFSET;
  const d: Vec3 = [from[0] + s * screenUp[0], from[1] + s * screenUp[1], from[2] + s * screenUp[2]];
  const len = Math.hypot(...d);
  return [d[0] / len, d[1] / len, d[2] / len];
}

interface MarkerAxis {
  label: string;
  title: string;
  /** Screen offset from the marker centre, in units of the axis length (+y down, as in SVG). */
  x: number;
  y: number;
  /** Camera-space depth: larger is nearer the viewer; drawn last. */
  depth: number;
  colour: 'x' | 'y' | 'z';
}

const AXES: { dir: Vec3; label: string; title: string; colour: MarkerAxis['colour'] }[] = [
  { dir: [1, 0, 0], label: 'L', title: 'Left', colour: 'x' },
  { dir: [-1, 0, 0], label: 'R', title: 'Right', colour: 'x' },
  { dir: [0, 1, 0], label: 'P', title: 'Posterior', colour: 'y' },
  { dir: [0, -1, 0], label: 'A', title: 'Anterior', colour: 'y' },
  { dir: [0, 0, 1], label: 'S', title: 'Superior', colour: 'z' },
  { dir: [0, 0, -1], label: 'I', title: 'Inferior', colour: 'z' },
];

/**
 * Where the six patient directions appear on screen, from the camera's view matrix (column-major
 * 4x4, as three's Matrix4.elements): its upper 3x3 rotates world directions into camera space.
 */
export function orientationMarkerLayout(viewMatrix: ArrayLike<number>): MarkerAxis[] {
  const m = viewMatrix;
  return AXES.map(({ dir, label, title, colour }) => {
    const cx = m[0]! * dir[0] + m[4]! * dir[1] + m[8]! * dir[2];
    const cy = m[1]! * dir[0] + m[5]! * dir[1] + m[9]! * dir[2];
    const cz = m[2]! * dir[0] + m[6]! * dir[1] + m[10]! * dir[2];
    return { label, title, x: cx, y: -cy, depth: cz, colour };
  }).sort((a, b) => a.depth - b.depth);
}
