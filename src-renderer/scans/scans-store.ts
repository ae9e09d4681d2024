import { create } from 'zustand';
import type { ScanProblem, SeriesSummary, SkippedFile } from '../../src-shared/scans';
import { api, errorText, grantsForFiles, type ErrorText } from '../bridge/api';
import type { ScanGrant } from '../../src-shared/contract';
import type { DroppedItem } from '../bridge/dropped-item';
import { useApp } from '../app/app-store';
import { announce } from '../shell/announce';
import { plural } from '../common/format';

export interface IntakeProgress {
  phase: 'copying' | 'reading';
  files: number;
  filesDone: number;
  bytes: number;
  bytesDone: number;
}

/** What the app found wrong with one drop as a whole: shown until the user dismisses it. */
export interface IntakeNotice {
  id: number;
  /** 'error' when nothing usable came of the drop. */
  severity: 'error' | 'warning' | 'info';
  title: string;
  problems: ScanProblem[];
  skipped: SkippedFile[];
}

interface ScansState {
  series: SeriesSummary[];
  /** Series chosen for the next submission. */
  selected: string[];
  deidentify: Record<string, boolean>;
  progress: IntakeProgress | null;
  notices: IntakeNotice[];
  error: ErrorText | null;
  addItems(items: DroppedItem[]): Promise<void>;
  addGrants(grants: ScanGrant[]): Promise<void>;
  remove(id: string): void;
  toggleSelected(id: string): void;
  setSelected(ids: string[]): void;
  setDeidentify(id: string, on: boolean): void;
  dismissNotice(id: number): void;
  clearError(): void;
}

/**
 * A series can be sent when its files have no error-level problem (warnings only inform) and a model
 * can honestly be made of it (fitness: enough slices, a jaw's extent...); otherwise it is never ticked.
 */
export const isUsable = (s: SeriesSummary): boolean =>
  !s.problems.some((p) => p.severity === 'error') && s.fitness.fit;

let noticeSeq = 0;
// Drops are read one after another so two quick drops never interleave their results.
let chain: Promise<void> = Promise.resolve();

function noticeFor(
  found: number,
  problems: ScanProblem[],
  skipped: SkippedFile[],
  what: string,
): IntakeNotice | null {
  if (found === 0)
    return {
      id: ++noticeSeq,
      severity: 'error',
      title: `No CT scan found in ${what}.`,
      problems,
      skipped,
    };
  if (problems.length === 0 && skipped.length === 0) return null;
  return {
    id: ++noticeSeq,
    severity: problems.some((p) => p.severity !== 'info') ? 'warning' : 'info',
    title:
      skipped.length > 0
        ? `${plural(skipped.length, 'file')} in ${what} ${skipped.length === 1 ? 'was' : 'were'} left out.`
        : `Notes on ${what}.`,
    problems,
    skipped,
  };
}

function describeDrop(items: { name: string }[]): string {
  const first = items[0]?.name ?? 'what you added';
  return items.length === 1 ? first : `${first} and ${plural(items.length - 1, 'other item')}`;
}

async function intake(grants: ScanGrant[], what: string): Promise<void> {
  const set = useScans.setState;
  set({ progress: { phase: 'reading', files: 0, filesDone: 0, bytes: 0, bytesDone: 0 }, error: null });
  try {
    const result = await api.scans.intake({ grants: grants.map((g) => g.id) });
    // Each series gets its own card to tick; a note that the drop held several says nothing more.
    const problems = result.problems.filter((p) => p.code !== 'several-series');
    const deidDefault = useApp.getState().settings?.deidentifyByDefault ?? true;
    set((s) => {
      const known = new Set(s.series.map((x) => x.id));
      const fresh = result.series.filter((x) => !known.has(x.id));
      const notice = noticeFor(result.series.length, problems, result.skipped, what);
      const deidentify = { ...s.deidentify };
      for (const x of fresh) deidentify[x.id] = deidDefault;
      return {
        series: [...s.series, ...fresh],
        selected: [...s.selected, ...fresh.filter(isUsable).map((x) => x.id)],
        deidentify,
        notices: notice ? [notice, ...s.notices] : s.notices,
        progress: null,
      };
    });
    const n = result.series.length;
    announce(n === 0 ? `No CT scan found in ${what}.` : `${plural(n, 'series', 'series')} found in ${what}.`);
  } catch (e) {
    set({ progress: null, error: errorText(e) });
    announce(errorText(e).message);
  }
}

export const useScans = create<ScansState>((set) => ({
  series: [],
  selected: [],
  deidentify: {},
  progress: null,
  notices: [],
  error: null,

  addItems(items) {
    if (items.length === 0) return Promise.resolve();
    const tops = [...new Set(items.map((i) => (i.relativePath || i.file.name).split('/')[0] ?? ''))];
    const what = describeDrop(tops.map((name) => ({ name })));
    chain = chain.then(async () => {
      let grants: ScanGrant[];
      try {
        grants = await grantsForFiles(items, (p) => set({ progress: { phase: 'copying', ...p } }));
      } catch (e) {
        set({ progress: null, error: errorText(e) });
        return;
      }
      if (grants.length === 0) {
        set({ progress: null, error: { message: `Nothing could be read from ${what}.` } });
        return;
      }
      await intake(grants, what);
    });
    return chain;
  },

  addGrants(grants) {
    if (grants.length === 0) return Promise.resolve();
    const what = describeDrop(grants);
    chain = chain.then(() => intake(grants, what));
    return chain;
  },

  remove: (id) =>
    set((s) => ({
      series: s.series.filter((x) => x.id !== id),
      selected: s.selected.filter((x) => x !== id),
    })),
  toggleSelected: (id) =>
    set((s) => ({
      selected: s.selected.includes(id)
        ? s.selected.filter((x) => x !== id)
        : s.series.some((x) => x.id === id && isUsable(x))
          ? [...s.selected, id]
          : s.selected,
    })),
  // Only series that can be sent are ever ticked, whoever asks.
  setSelected: (ids) =>
    set((s) => ({ selected: ids.filter((id) => s.series.some((x) => x.id === id && isUsable(x))) })),
  setDeidentify: (id, on) => set((s) => ({ deidentify: { ...s.deidentify, [id]: on } })),
  dismissNotice: (id) => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
  clearError: () => set({ error: null }),
}));
