import { create } from 'zustand';
import type { ScanProblem, SeriesSummary, SkippedFile } from '../../src-shared/scans';
import { isUsable } from '../../src-shared/series-usable';
import { api, errorText, grantsForFiles, type ErrorText } from '../bridge/api';
import type { ScanGrant } from '../../src-shared/contract';
import type { DroppedItem } from '../bridge/dropped-item';
import { useApp } from '../app/app-store';
import { announce } from '../shell/announce';
import { plural } from '../common/format';
import { stagePaths, topOf } from '../bridge/stage-batches';
import { duplicateOf } from './duplicates';

interface IntakeProgress {
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
  /** What each card came from, as the drop was named ("scan-2024" or "scan-2024.zip"). */
  sources: Record<string, string>;
  /** Cards that repeat an earlier one (duplicates.ts) which the user chose to send anyway. */
  insisted: string[];
  progress: IntakeProgress | null;
  notices: IntakeNotice[];
  error: ErrorText | null;
  addItems(items: DroppedItem[]): Promise<void>;
  addGrants(grants: ScanGrant[]): Promise<void>;
  remove(id: string): void;
  /** Lists again the series the main process still holds (after a reload of the page or window). */
  restore(): Promise<void>;
  toggleSelected(id: string): void;
  setSelected(ids: string[]): void;
  setDeidentify(id: string, on: boolean): void;
  /** Send a repeated series anyway (on), or only its first copy (off). */
  setInsist(id: string, on: boolean): void;
  dismissNotice(id: number): void;
  clearError(): void;
}

/** Can be ticked: usable, and not a repeat of an earlier card unless the user insists. */
const tickable = (s: ScansState, id: string): boolean => {
  const x = s.series.find((y) => y.id === id);
  return !!x && isUsable(x) && (!duplicateOf(x, s.series) || s.insisted.includes(id));
};

let noticeSeq = 0;
// Drops are read one after another so two quick drops never interleave their results.
let chain: Promise<void> = Promise.resolve();

function noticeFor(
  found: SeriesSummary[],
  problems: ScanProblem[],
  skipped: SkippedFile[],
  what: string,
): IntakeNotice | null {
  // Series that cannot be used say why on their own cards; the summary counts them so every item
  // of the drop is accounted for in one place.
  const unusable = found.filter((x) => !isUsable(x)).length;
  const cards =
    unusable > 0
      ? ` ${plural(unusable, 'series', 'series')} found cannot be used: ${unusable === 1 ? 'its card says' : 'their cards say'} why.`
      : '';
  const left =
    skipped.length > 0
      ? `${plural(skipped.length, 'file')} in ${what} ${skipped.length === 1 ? 'was' : 'were'} left out.`
      : '';
  if (found.length === 0 || found.length === unusable)
    return {
      id: ++noticeSeq,
      severity: 'error',
      title: `No usable CT scan in ${what}.${skipped.length > 0 ? ` ${plural(skipped.length, 'file')} ${skipped.length === 1 ? 'was' : 'were'} left out.` : ''}${cards}`,
      problems,
      skipped,
    };
  if (problems.length === 0 && skipped.length === 0) return null;
  return {
    id: ++noticeSeq,
    severity: problems.some((p) => p.severity !== 'info') ? 'warning' : 'info',
    title: left ? `${left}${cards}` : `Notes on ${what}.${cards}`,
    problems,
    skipped,
  };
}

function describeDrop(items: { name: string }[]): string {
  const first = items[0]?.name ?? 'what you added';
  if (items.length === 1) return first;
  if (items.length === 2) return `${first} and ${items[1]?.name ?? ''}`;
  return `the ${items.length} items you added`;
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
      const notice = noticeFor(result.series, problems, result.skipped, what);
      const deidentify = { ...s.deidentify };
      const sources = { ...s.sources };
      for (const x of fresh) {
        deidentify[x.id] = deidDefault;
        sources[x.id] = what;
      }
      const series = [...s.series, ...fresh];
      // A repeat of a series already on the list is shown, flagged, but not ticked: sent once.
      const ticked = fresh.filter((x) => isUsable(x) && !duplicateOf(x, series)).map((x) => x.id);
      return {
        series,
        selected: [...s.selected, ...ticked],
        deidentify,
        sources,
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
  sources: {},
  insisted: [],
  progress: null,
  notices: [],
  error: null,

  addItems(items) {
    if (items.length === 0) return Promise.resolve();
    // Named as web mode stages them: two dropped things of one name are two ("scan (2).dcm").
    const tops = [...new Set(stagePaths(items).map((f) => topOf(f.path)))];
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

  remove: (id) => {
    set((s) => ({
      series: s.series.filter((x) => x.id !== id),
      selected: s.selected.filter((x) => x !== id),
      insisted: s.insisted.filter((x) => x !== id),
    }));
    // The main process lets go of it too, with the unpacked copy of patient data that served it. A
    // failure changes nothing the user sees (the copy still goes when the app closes).
    api.scans.forget({ seriesIds: [id] }).catch(() => undefined);
  },
  async restore() {
    let held: SeriesSummary[];
    try {
      ({ series: held } = await api.scans.list({}));
    } catch {
      return; // nothing to list again: the page starts empty, as on a first start
    }
    // Before the settings may have come: de-identification on, the safe side, until the user says.
    const deidDefault = useApp.getState().settings?.deidentifyByDefault ?? true;
    set((s) => {
      const known = new Set(s.series.map((x) => x.id));
      const back = held.filter((x) => !known.has(x.id));
      if (back.length === 0) return s;
      const deidentify = { ...s.deidentify };
      for (const x of back) deidentify[x.id] = deidDefault;
      // Listed again, not ticked: nothing is sent that the user has not chosen since the reload.
      return { series: [...back, ...s.series], deidentify };
    });
  },
  toggleSelected: (id) =>
    set((s) => ({
      selected: s.selected.includes(id)
        ? s.selected.filter((x) => x !== id)
        : tickable(s, id)
          ? [...s.selected, id]
          : s.selected,
    })),
  // Only series that can be sent are ever ticked, whoever asks.
  setSelected: (ids) => set((s) => ({ selected: ids.filter((id) => tickable(s, id)) })),
  setInsist: (id, on) =>
    set((s) => {
      const insisted = on ? [...new Set([...s.insisted, id])] : s.insisted.filter((x) => x !== id);
      const next = { ...s, insisted };
      const selected = on
        ? tickable(next, id) && !s.selected.includes(id)
          ? [...s.selected, id]
          : s.selected
        : s.selected.filter((x) => x !== id);
      return { insisted, selected };
    }),
  setDeidentify: (id, on) => set((s) => ({ deidentify: { ...s.deidentify, [id]: on } })),
  dismissNotice: (id) => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
  clearError: () => set({ error: null }),
}));
