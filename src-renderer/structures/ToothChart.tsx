import { useId, useRef, useState, type KeyboardEvent } from 'react';
import './tooth-chart.css';
import { structureInfo } from '../../src-shared/structures';
import { isCovered } from './structure-selection';

/**
 * The FDI chart as a dentist reads it, facing the patient: the patient's right on the left. Rows from
 * top: upper permanent, upper deciduous, lower deciduous, lower permanent.
 */
const seq = (q: number, from: number, to: number): string[] => {
  const out: string[] = [];
  const dir = from <= to ? 1 : -1;
  for (let t = from; dir > 0 ? t <= to : t >= to; t += dir) out.push(`tooth${q}${t}`);
  return out;
};

const ROWS: { label: string; right: string[]; left: string[]; deciduous: boolean }[] = [
  { label: 'Upper permanent', right: seq(1, 8, 1), left: seq(2, 1, 8), deciduous: false },
  { label: 'Upper deciduous', right: seq(5, 5, 1), left: seq(6, 1, 5), deciduous: true },
  { label: 'Lower deciduous', right: seq(8, 5, 1), left: seq(7, 1, 5), deciduous: true },
  { label: 'Lower permanent', right: seq(4, 8, 1), left: seq(3, 1, 8), deciduous: false },
];

const GRID: string[][] = ROWS.map((r) => [...r.right, ...r.left]);

function position(tooth: string): [number, number] {
  for (let r = 0; r < GRID.length; r++) {
    const c = GRID[r]!.indexOf(tooth);
    if (c >= 0) return [r, c];
  }
  return [0, 0];
}

const ALL_TEETH = GRID.flat();

/** Refused teeth grouped by their reason, so one reason is said once, beside the teeth it concerns. */
function refusalGroups(refused: ReadonlyMap<string, string>): { reason: string; teeth: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const tooth of ALL_TEETH) {
    const reason = refused.get(tooth);
    if (reason !== undefined) groups.set(reason, [...(groups.get(reason) ?? []), tooth]);
  }
  return [...groups].map(([reason, teeth]) => ({ reason, teeth }));
}

export function ToothChart({
  chosen,
  refused,
  connectionName,
  onToggle,
}: {
  chosen: readonly string[];
  /** Teeth the connection cannot make, with the reason in words. */
  refused: ReadonlyMap<string, string>;
  connectionName: string;
  onToggle: (tooth: string) => void;
}) {
  const idBase = useId();
  const groups = refusalGroups(refused);
  const reasonId = (tooth: string): string | undefined => {
    const reason = refused.get(tooth);
    const i = groups.findIndex((g) => g.reason === reason);
    return i >= 0 ? `${idBase}-why-${i}` : undefined;
  };
  // One tab stop for the chart; arrow keys move inside it (a roving tab index).
  const [focusTooth, setFocusTooth] = useState('tooth11');
  const refs = useRef(new Map<string, HTMLButtonElement>());

  const move = (e: KeyboardEvent<HTMLButtonElement>, tooth: string): void => {
    const [r, c] = position(tooth);
    let nr = r;
    let nc = c;
    if (e.key === 'ArrowLeft') nc = c - 1;
    else if (e.key === 'ArrowRight') nc = c + 1;
    else if (e.key === 'ArrowUp') nr = r - 1;
    else if (e.key === 'ArrowDown') nr = r + 1;
    else if (e.key === 'Home') nc = 0;
    else if (e.key === 'End') nc = Number.MAX_SAFE_INTEGER;
    else return;
    e.preventDefault();
    nr = Math.max(0, Math.min(GRID.length - 1, nr));
    const row = GRID[nr]!;
    // Rows differ in length (8+8 or 5+5): keep the column relative to the midline.
    if (nr !== r) {
      const fromMid = c - GRID[r]!.length / 2;
      nc = Math.round(row.length / 2 + fromMid);
    }
    nc = Math.max(0, Math.min(row.length - 1, nc));
    const next = row[nc]!;
    setFocusTooth(next);
    refs.current.get(next)?.focus();
  };

  return (
    <div
      className="tooth-chart"
      role="group"
      aria-label="Tooth chart (FDI)"
      aria-describedby="tooth-chart-help"
    >
      <p id="tooth-chart-help" className="hint">
        Facing the patient. Arrow keys move, Space or Enter chooses a tooth.
      </p>
      {groups.map((g, i) => (
        <p key={g.reason} id={`${idBase}-why-${i}`} className="why refused-why tooth-why">
          {g.teeth.length === ALL_TEETH.length
            ? `No single tooth is available on ${connectionName}: `
            : `Not available on ${connectionName} (${g.teeth.map((t) => t.slice(5)).join(', ')}): `}
          {g.reason}
        </p>
      ))}
      <div className="tooth-sides" aria-hidden="true">
        <span>Patient’s right</span>
        <span>Patient’s left</span>
      </div>
      {ROWS.map((row, ri) => (
        <div
          key={row.label}
          className={`tooth-row${row.deciduous ? ' deciduous' : ''}${ri === 2 ? ' lower-start' : ''}`}
          role="group"
          aria-label={row.label}
        >
          {[row.right, row.left].map((half, hi) => (
            <div key={hi} className={`tooth-half ${hi === 0 ? 'right' : 'left'}`}>
              {half.map((tooth) => {
                const on = isCovered(tooth, chosen);
                const no = refused.has(tooth);
                // A refused tooth cannot be chosen; one chosen by itself can still be let go. One
                // covered by a shorthand stays as it is: letting it go would choose its refused siblings.
                const locked = no && !chosen.includes(tooth);
                const info = structureInfo(tooth);
                return (
                  <button
                    key={tooth}
                    ref={(el) => {
                      if (el) refs.current.set(tooth, el);
                      else refs.current.delete(tooth);
                    }}
                    type="button"
                    className={`tooth${on ? ' on' : ''}${no ? ' refused' : ''}`}
                    tabIndex={tooth === focusTooth ? 0 : -1}
                    aria-pressed={on}
                    // aria-disabled, not disabled: the tooth stays reachable by the arrow keys.
                    aria-disabled={locked || undefined}
                    aria-label={`${info?.label ?? tooth}${no ? ', not available' : ''}`}
                    aria-describedby={no ? reasonId(tooth) : undefined}
                    data-tooth={tooth.slice(5)}
                    onFocus={() => setFocusTooth(tooth)}
                    onKeyDown={(e) => move(e, tooth)}
                    onClick={() => {
                      if (!locked) onToggle(tooth);
                    }}
                  >
                    {tooth.slice(5)}
                  </button>
                );
              })}
            </div>
          ))}
        </div>
      ))}
    </div>
  );
}
