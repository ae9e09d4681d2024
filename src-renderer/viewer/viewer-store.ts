import { create } from 'zustand';
import type { MeshFormat } from './mesh-format.js';
import type { LoadStage, LoadTimings } from './mesh-loader-protocol.js';
import {
  EMPTY_MEASURE_LIST,
  addPick,
  cancelPending,
  clearMeasurements,
  removeMeasurement,
} from './measurements.js';
import type { MeasureList } from './measurements.js';
import type { Vec3 } from './standard-views.js';

export { distance } from './measurements.js';

export interface SceneItem {
  id: string;
  name: string;
  structures: string[];
  format: MeshFormat;
  /** 'job': an output of a finished job (aligned with the other outputs); 'file': opened from disk. */
  origin: 'job' | 'file';
  colour: string;
  visible: boolean;
  /** 0.05..1 */
  opacity: number;
  triangles: number;
  degenerate: number;
  /** [minX, minY, minZ, maxX, maxY, maxZ], mm, patient LPS. */
  bounds: [number, number, number, number, number, number];
  timings: LoadTimings;
}

export interface PendingLoad {
  id: string;
  name: string;
  stage: LoadStage | 'download' | 'queued';
  /** 0..1, or null while the amount is unknown (a job output being fetched). */
  overall: number | null;
}

interface ViewerNotice {
  id: string;
  message: string;
  action?: string;
}

export type ClipAxis = 'x' | 'y' | 'z';

export interface ClipState {
  enabled: boolean;
  axis: ClipAxis;
  /** Plane position along the axis, mm; null: the middle of the scene on that axis, wherever the meshes lie. */
  position: number | null;
  /** false: keep the part at lower coordinates (right / anterior / inferior); true: the other part. */
  flip: boolean;
}

export interface ViewerState {
  items: SceneItem[];
  loads: PendingLoad[];
  notices: ViewerNotice[];
  /** One line for people and tests: what the viewer last did. */
  status: string;
  wireframe: boolean;
  clip: ClipState;
  measuring: boolean;
  /** Finished measurements (kept until removed) and the first point of one under way. */
  measure: MeasureList;
  /** Meshes whose size suggests units other than mm, by id: the user said they are right. */
  unitHintDismissed: string[];
  /** Why the 3D view cannot draw (no WebGL, context lost), or null. */
  viewFailure: string | null;

  addItem(item: SceneItem): void;
  updateItem(id: string, patch: Partial<Pick<SceneItem, 'colour' | 'visible' | 'opacity'>>): void;
  removeItem(id: string): void;
  setLoad(load: PendingLoad): void;
  endLoad(id: string): void;
  addNotice(notice: Omit<ViewerNotice, 'id'>): void;
  dismissNotice(id: string): void;
  setStatus(status: string): void;
  setWireframe(on: boolean): void;
  setClip(patch: Partial<ClipState>): void;
  setMeasuring(on: boolean): void;
  addMeasurePoint(p: Vec3): void;
  removeMeasurement(id: string): void;
  clearMeasurements(): void;
  dismissUnitHint(id: string): void;
  setViewFailure(message: string | null): void;
}

let noticeCounter = 0;

export const useViewerStore = create<ViewerState>()((set) => ({
  items: [],
  loads: [],
  notices: [],
  status: 'No mesh loaded.',
  wireframe: false,
  clip: { enabled: false, axis: 'z', position: null, flip: false },
  measuring: false,
  measure: EMPTY_MEASURE_LIST,
  unitHintDismissed: [],
  viewFailure: null,

  addItem: (item) => set((s) => ({ items: [...s.items.filter((i) => i.id !== item.id), item] })),
  updateItem: (id, patch) =>
    set((s) => ({ items: s.items.map((i) => (i.id === id ? { ...i, ...patch } : i)) })),
  removeItem: (id) => set((s) => ({ items: s.items.filter((i) => i.id !== id) })),
  setLoad: (load) => set((s) => ({ loads: [...s.loads.filter((l) => l.id !== load.id), load] })),
  endLoad: (id) => set((s) => ({ loads: s.loads.filter((l) => l.id !== id) })),
  // The newest notice first; five are plenty to read, older ones drop off.
  addNotice: (notice) =>
    set((s) => ({ notices: [{ ...notice, id: `n${++noticeCounter}` }, ...s.notices].slice(0, 5) })),
  dismissNotice: (id) => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
  setStatus: (status) => set({ status }),
  setWireframe: (wireframe) => set({ wireframe }),
  setClip: (patch) => set((s) => ({ clip: { ...s.clip, ...patch } })),
  // Turning measuring off drops a half-made measurement; finished ones stay listed.
  setMeasuring: (measuring) => set((s) => ({ measuring, measure: cancelPending(s.measure) })),
  addMeasurePoint: (p) => set((s) => ({ measure: addPick(s.measure, p) })),
  removeMeasurement: (id) => set((s) => ({ measure: removeMeasurement(s.measure, id) })),
  clearMeasurements: () => set({ measure: clearMeasurements() }),
  dismissUnitHint: (id) => set((s) => ({ unitHintDismissed: [...s.unitHintDismissed, id] })),
  setViewFailure: (viewFailure) => set({ viewFailure }),
}));

/**
 * The clipping plane's position in mm: the one chosen, else the middle of the shown meshes on the
 * axis (a hidden mesh far away put the plane where nothing is shown, and the view went empty).
 */
export function clipPosition(clip: ClipState, items: readonly SceneItem[]): number {
  if (clip.position !== null) return clip.position;
  const b = shownBounds(items);
  const k = { x: 0, y: 1, z: 2 }[clip.axis];
  return b ? (b[k]! + b[k + 3]!) / 2 : 0;
}

/** Union of the boxes of the shown items (what clipping and framing work on), or null. */
export function shownBounds(items: readonly SceneItem[]): SceneItem['bounds'] | null {
  return unionBounds(items.filter((i) => i.visible));
}

/** Union of the boxes of the given items, or null when there are none. */
export function unionBounds(items: readonly SceneItem[]): SceneItem['bounds'] | null {
  if (items.length === 0) return null;
  const b: SceneItem['bounds'] = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
  for (const { bounds } of items) {
    for (let k = 0; k < 3; k++) {
      b[k] = Math.min(b[k]!, bounds[k]!);
      b[k + 3] = Math.max(b[k + 3]!, bounds[k + 3]!);
    }
  }
  return b;
}
