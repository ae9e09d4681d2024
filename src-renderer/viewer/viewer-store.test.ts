import { beforeEach, describe, expect, it } from 'vitest';
import { clipPosition, distance, unionBounds, useViewerStore } from './viewer-store.js';
import type { SceneItem } from './viewer-store.js';
import { syncJobMeshes, type ViewerMeshSource } from './viewer-actions.js';

function item(id: string, bounds: SceneItem['bounds']): SceneItem {
  return {
    id,
    name: `${id}.stl`,
    structures: [],
    format: 'stl',
    origin: 'file',
    colour: '#ffffff',
    visible: true,
    opacity: 1,
    triangles: 10,
    degenerate: 0,
    bounds,
    timings: { readMs: 0, parseMs: 0, weldMs: 0, normalsMs: 0, totalMs: 0 },
  };
}

describe('viewer store', () => {
  beforeEach(() => {
    const s = useViewerStore.getState();
    for (const i of s.items) s.removeItem(i.id);
    s.setMeasuring(false);
    s.setClip({ enabled: false, axis: 'z', position: null, flip: false });
  });

  it('keeps every finished measurement when a new one starts; leaving measuring drops only a half-made one', () => {
    const s = useViewerStore.getState();
    s.clearMeasurements();
    s.setMeasuring(true);
    s.addMeasurePoint([0, 0, 0]);
    s.addMeasurePoint([3, 4, 0]);
    s.addMeasurePoint([1, 1, 1]);
    s.addMeasurePoint([1, 1, 3]);
    s.addMeasurePoint([9, 9, 9]);
    let m = useViewerStore.getState().measure;
    expect(m.measurements.map((x) => [x.label, x.distance])).toEqual([
      [1, 5],
      [2, 2],
    ]);
    expect(m.pending).toEqual([9, 9, 9]);
    s.setMeasuring(false);
    m = useViewerStore.getState().measure;
    expect(m.pending).toBeNull();
    expect(m.measurements).toHaveLength(2);
    s.removeMeasurement(m.measurements[0]!.id);
    expect(useViewerStore.getState().measure.measurements.map((x) => x.label)).toEqual([2]);
    s.clearMeasurements();
    expect(useViewerStore.getState().measure.measurements).toEqual([]);
    expect(distance([0, 0, 0], [0, 3, 4])).toBe(5);
  });

  it('puts an unplaced clipping plane in the middle of the scene on its axis', () => {
    const items = [item('a', [0, 0, 600, 10, 10, 700]), item('b', [-5, 20, 650, 5, 30, 800])];
    expect(unionBounds(items)).toEqual([-5, 0, 600, 10, 30, 800]);
    expect(clipPosition({ enabled: true, axis: 'z', position: null, flip: false }, items)).toBe(700);
    expect(clipPosition({ enabled: true, axis: 'x', position: null, flip: false }, items)).toBe(2.5);
    expect(clipPosition({ enabled: true, axis: 'x', position: -1, flip: false }, items)).toBe(-1);
    expect(unionBounds([])).toBeNull();
  });

  it('keeps the newest five messages first', () => {
    const s = useViewerStore.getState();
    for (let i = 1; i <= 7; i++) s.addNotice({ message: `m${i}` });
    expect(useViewerStore.getState().notices.map((n) => n.message)).toEqual(['m7', 'm6', 'm5', 'm4', 'm3']);
    s.dismissNotice(useViewerStore.getState().notices[0]!.id);
    expect(useViewerStore.getState().notices[0]!.message).toBe('m6');
  });

  it('replaces an item loaded again under the same id and updates its look', () => {
    const s = useViewerStore.getState();
    s.addItem(item('a', [0, 0, 0, 1, 1, 1]));
    s.addItem(item('a', [0, 0, 0, 2, 2, 2]));
    s.updateItem('a', { opacity: 0.5, colour: '#123456' });
    const items = useViewerStore.getState().items;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ opacity: 0.5, colour: '#123456', bounds: [0, 0, 0, 2, 2, 2] });
  });

  // A review: a hidden mesh far away put the plane where nothing was shown; the view went empty.
  it('places an unplaced clipping plane among the shown meshes only', () => {
    const s = useViewerStore.getState();
    s.addItem(item('skull', [0, 0, 694, 10, 10, 828]));
    s.addItem({ ...item('hidden', [0, 0, 10, 10, 10, 50]), visible: false });
    expect(clipPosition(useViewerStore.getState().clip, useViewerStore.getState().items)).toBe(761);
  });

  // A review: one patient's measurement stayed listed, and drawn, over the next job's meshes.
  it("drops the measurements and the plane's place when another job's meshes replace a job's", () => {
    const s = useViewerStore.getState();
    s.addItem({ ...item('job-a:0', [0, 0, 0, 100, 100, 100]), origin: 'job' });
    s.setMeasuring(true);
    s.addMeasurePoint([0, 0, 0]);
    s.addMeasurePoint([30, 40, 0]);
    s.setClip({ position: 50 });
    syncJobMeshes([]);
    expect(useViewerStore.getState().measure.measurements).toEqual([]);
    expect(useViewerStore.getState().clip.position).toBeNull();
    // The same job's meshes again (a list refreshed) keep them.
    s.addItem({ ...item('job-b:0', [0, 0, 0, 100, 100, 100]), origin: 'job' });
    s.addMeasurePoint([0, 0, 0]);
    s.addMeasurePoint([30, 40, 0]);
    syncJobMeshes(useViewerStore.getState().items.map((i) => ({ ...sourceOf(i) })));
    expect(useViewerStore.getState().measure.measurements).toHaveLength(1);
  });
});

function sourceOf(i: SceneItem): ViewerMeshSource {
  return {
    id: i.id,
    name: i.name,
    format: i.format,
    structures: i.structures,
    load: () => Promise.reject(new Error('not loaded here')),
  };
}
