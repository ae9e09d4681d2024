import { create } from 'zustand';
import { PRESETS } from '../../src-shared/structures';
import { toggleName, toggleTooth, type MeshExtension, type MeshMode } from './structure-selection';

interface SelectionState {
  /** Chosen names in the order chosen: catalogue names, shorthands, and names typed by the user. */
  names: string[];
  mode: MeshMode;
  extension: MeshExtension;
  toggle(name: string): void;
  toggleTooth(tooth: string): void;
  add(name: string): void;
  remove(name: string): void;
  applyPreset(id: string): void;
  clear(): void;
  setMode(mode: MeshMode): void;
  setExtension(ext: MeshExtension): void;
}

/** The structures the next submission asks for; one choice for every selected scan (a batch). */
export const useSelection = create<SelectionState>((set) => ({
  names: [],
  mode: 'separate',
  extension: '.stl',
  toggle: (name) => set((s) => ({ names: toggleName(s.names, name) })),
  toggleTooth: (tooth) => set((s) => ({ names: toggleTooth(s.names, tooth) })),
  add: (name) => set((s) => (s.names.includes(name) ? s : { names: [...s.names, name] })),
  remove: (name) => set((s) => ({ names: s.names.filter((n) => n !== name) })),
  applyPreset: (id) => {
    const preset = PRESETS.find((p) => p.id === id);
    if (preset) set({ names: [...preset.structures] });
  },
  clear: () => set({ names: [] }),
  setMode: (mode) => set({ mode }),
  setExtension: (extension) => set({ extension }),
}));
