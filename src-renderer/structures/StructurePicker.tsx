import { useId, useMemo, useState } from 'react';
import type { Capabilities } from '../../src-shared/contract';
import { respell } from '../../src-shared/structure-check';
import { PRESETS, STRUCTURES, type StructureGroup } from '../../src-shared/structures';
import {
  checkFreeName,
  isCovered,
  refusedChoices,
  structureKey,
  structureLabel,
  toggleTooth,
  withoutNamePrefix,
  type MeshExtension,
} from './structure-selection';
import { useSelection } from './selection-store';
import { ToothChart } from './ToothChart';
import './structure-panel.css';

const EXTENSIONS: { ext: MeshExtension; label: string }[] = [
  { ext: '.stl', label: 'STL (.stl) — most planning software' },
  { ext: '.ply', label: 'PLY (.ply)' },
  { ext: '.obj', label: 'OBJ (.obj)' },
  { ext: '.drc', label: 'Draco (.drc) — smallest files' },
];

const GROUP_LIST: { id: Exclude<StructureGroup, 'other'>; label: string; names: string[] }[] = [
  { id: 'bones', label: 'Bones', names: STRUCTURES.filter((s) => s.group === 'bones').map((s) => s.name) },
  { id: 'nerves', label: 'Nerves', names: STRUCTURES.filter((s) => s.group === 'nerves').map((s) => s.name) },
  { id: 'teeth', label: 'Teeth', names: ['all_teeth', 'all_permanent_teeth'] },
];

function StructureCheckbox({
  name,
  chosen,
  reason,
  note,
  groupReasonId,
}: {
  name: string;
  chosen: readonly string[];
  reason: string | undefined;
  note: string | undefined;
  /** Set when the whole group is refused for one reason, said once under the group's title. */
  groupReasonId?: string | undefined;
}) {
  const id = `structure-${name}`;
  const covered = isCovered(name, chosen);
  const direct = chosen.includes(name);
  // A refused name cannot be ticked; one chosen by itself can still be unticked. One chosen through
  // a shorthand stays: unticking it would choose the shorthand's other (refused) members instead.
  const locked = !!reason && !direct;
  const ownReason = reason && !groupReasonId ? reason : undefined;
  // What the connection makes of a name is shown once it is chosen; a refusal is shown always.
  const whyId = ownReason || (note && covered && !reason) ? `${id}-why` : undefined;
  const describedBy = groupReasonId ?? whyId;
  return (
    <div className={`check${reason ? ' refused' : ''}`}>
      <input
        id={id}
        type="checkbox"
        checked={covered}
        disabled={locked}
        aria-describedby={describedBy}
        onChange={() => {
          const s = useSelection.getState();
          // Unticking a name chosen through a shorthand keeps the shorthand's other members.
          if (!direct && covered) s.toggleTooth(name);
          else s.toggle(name);
        }}
      />
      <label htmlFor={id}>{structureLabel(name)}</label>
      {whyId && (
        <span id={whyId} className={ownReason ? 'why refused-why' : 'why'}>
          {ownReason
            ? `Not available: ${withoutNamePrefix(name, ownReason)}`
            : note && withoutNamePrefix(name, note)}
        </span>
      )}
    </div>
  );
}

/**
 * The reason shared by the refused names of a group, when two or more are refused for one reason,
 * so it is said once under the group's title; null otherwise (each name then says its own).
 */
function sharedReason(
  names: readonly string[],
  refused: ReadonlyMap<string, string>,
): { reason: string; names: string[] } | null {
  const hit = names.filter((n) => refused.has(n));
  const reasons = new Set(hit.map((n) => withoutNamePrefix(n, refused.get(n) ?? '')));
  const [only] = reasons;
  return hit.length >= 2 && reasons.size === 1 && only !== undefined ? { reason: only, names: hit } : null;
}

/** "Mandible and Maxilla", "A, B and C". */
function listLabels(names: readonly string[]): string {
  const labels = names.map(structureLabel);
  return labels.length <= 1 ? (labels[0] ?? '') : `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)}`;
}

/** The structures to segment: presets, the catalogue in groups, single teeth, and free names. */
export function StructurePicker({
  caps,
  connectionName,
}: {
  caps: Capabilities | null;
  connectionName: string;
}) {
  const names = useSelection((s) => s.names);
  const mode = useSelection((s) => s.mode);
  const extension = useSelection((s) => s.extension);
  const sel = useSelection.getState();
  const [free, setFree] = useState('');
  const [freeTouched, setFreeTouched] = useState(false);
  const [showTeeth, setShowTeeth] = useState(false);
  const uid = useId();

  const refused = useMemo(
    () => new Set(refusedChoices(names, caps, connectionName).map((r) => r.name)),
    [names, caps, connectionName],
  );
  // Reasons and notes name structures by their labels, as the rest of the panel does.
  const refusedMap = useMemo(
    () =>
      new Map(
        caps?.refused.map((r) => [r.name, respell(withoutNamePrefix(r.name, r.reason), structureLabel)]) ??
          [],
      ),
    [caps],
  );
  const notesMap = useMemo(
    () =>
      new Map(
        [...(caps?.notes ?? []), ...(caps?.extra ?? [])].map((n) => [
          n.name,
          respell(withoutNamePrefix(n.name, n.note), structureLabel),
        ]),
      ),
    [caps],
  );
  // One entry per structure: an engine may accept two spellings of one name (soft_tissue, soft-tissue).
  const extraNames = useMemo(() => {
    const byKey = new Map<string, string>();
    for (const e of caps?.extra ?? [])
      if (!byKey.has(structureKey(e.name))) byKey.set(structureKey(e.name), e.name);
    return [...byKey.values()];
  }, [caps]);
  const refusedTeeth = useMemo(
    () =>
      new Map(
        [...refusedMap]
          .filter(([n]) => /^tooth\d\d$/.test(n))
          .map(([n, reason]) => [n, withoutNamePrefix(n, reason)]),
      ),
    [refusedMap],
  );
  const freeProblem = freeTouched ? checkFreeName(free, names) : null;
  // A typed name the connection cannot make is said as it is typed, and cannot be added.
  const freeName = free.trim();
  const freeRefusal =
    freeName && checkFreeName(freeName, names) === null
      ? refusedChoices([freeName], caps, connectionName)[0]
      : undefined;
  const singleTeeth = names.filter((n) => /^tooth\d\d$/.test(n)).length;

  const addFree = (): void => {
    setFreeTouched(true);
    if (checkFreeName(free, names) !== null || freeRefusal) return;
    sel.add(free.trim());
    setFree('');
    setFreeTouched(false);
  };

  return (
    <section className="picker" aria-labelledby={`${uid}-title`}>
      <h2 id={`${uid}-title`}>What to segment</h2>

      <div className="presets" role="group" aria-label="Presets">
        {PRESETS.map((p) => (
          <button
            key={p.id}
            type="button"
            className="chip-button"
            title={p.structures.map(structureLabel).join(', ')}
            onClick={() => sel.applyPreset(p.id)}
          >
            {p.label}
          </button>
        ))}
      </div>

      {GROUP_LIST.map((g) => {
        const shared = sharedReason(g.names, refusedMap);
        const groupReasonId = shared ? `${uid}-${g.id}-why` : undefined;
        return (
          <fieldset key={g.id} className="group">
            <legend>{g.label}</legend>
            {shared && (
              <p id={groupReasonId} className="why refused-why group-why">
                {shared.names.length === g.names.length
                  ? `Not available on ${connectionName}: `
                  : `${listLabels(shared.names)} are not available on ${connectionName}: `}
                {shared.reason}
              </p>
            )}
            {g.names.map((n) => (
              <StructureCheckbox
                key={n}
                name={n}
                chosen={names}
                reason={refusedMap.get(n)}
                note={notesMap.get(n)}
                groupReasonId={shared?.names.includes(n) ? groupReasonId : undefined}
              />
            ))}
            {g.id === 'teeth' && (
              <>
                <button
                  type="button"
                  className="link-button"
                  aria-expanded={showTeeth}
                  aria-controls={`${uid}-teeth`}
                  onClick={() => setShowTeeth((v) => !v)}
                >
                  {showTeeth ? 'Hide single teeth' : 'Choose single teeth…'}
                  {singleTeeth > 0 ? ` (${singleTeeth} chosen)` : ''}
                </button>
                <div id={`${uid}-teeth`} hidden={!showTeeth}>
                  {showTeeth && (
                    <ToothChart
                      chosen={names}
                      refused={refusedTeeth}
                      connectionName={connectionName}
                      onToggle={(t) => useSelection.setState((s) => ({ names: toggleTooth(s.names, t) }))}
                    />
                  )}
                </div>
              </>
            )}
          </fieldset>
        );
      })}

      <fieldset className="group">
        <legend>Other</legend>
        {extraNames.map((n) => (
          <StructureCheckbox key={n} name={n} chosen={names} reason={undefined} note={notesMap.get(n)} />
        ))}
        <label htmlFor={`${uid}-free`} className="sr-label">
          Another structure by name
        </label>
        <div className="row nowrap">
          <input
            id={`${uid}-free`}
            value={free}
            placeholder="e.g. airway"
            spellCheck={false}
            autoComplete="off"
            aria-invalid={freeProblem || freeRefusal ? true : undefined}
            aria-describedby={`${uid}-free-hint`}
            onChange={(e) => {
              setFree(e.target.value);
              if (e.target.value === '') setFreeTouched(false);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                addFree();
              }
            }}
          />
          <button type="button" onClick={addFree} disabled={!!freeRefusal}>
            Add
          </button>
        </div>
        <span
          id={`${uid}-free-hint`}
          className={freeProblem ? 'problem' : freeRefusal ? 'why refused-why' : 'hint'}
          data-testid="free-structure-hint"
        >
          {freeProblem ??
            (freeRefusal
              ? `Not available on ${connectionName}: ${freeRefusal.reason}`
              : 'For names the list lacks (airway, sinus…): the exact name the service uses.')}
        </span>
      </fieldset>

      <div className="chosen" aria-live="polite">
        <h3>Chosen</h3>
        {names.length === 0 ? (
          <p className="muted">Nothing yet: tick a structure or pick a preset.</p>
        ) : (
          <ul className="chips" aria-label="Chosen structures">
            {names.map((n) => (
              <li key={n} className={`chip${refused.has(n) ? ' refused' : ''}`}>
                <span>{structureLabel(n)}</span>
                {refused.has(n) && <span className="chip-tag">not available</span>}
                <button
                  type="button"
                  aria-label={`Remove ${structureLabel(n)}`}
                  onClick={() => sel.remove(n)}
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
        )}
        {names.length > 0 && (
          <button type="button" className="link-button" onClick={sel.clear}>
            Clear all
          </button>
        )}
      </div>

      <fieldset className="group">
        <legend>Files</legend>
        <div className="radio">
          <input
            id={`${uid}-separate`}
            type="radio"
            name={`${uid}-mode`}
            checked={mode === 'separate'}
            onChange={() => sel.setMode('separate')}
          />
          <label htmlFor={`${uid}-separate`}>One mesh per structure</label>
        </div>
        <div className="radio">
          <input
            id={`${uid}-merged`}
            type="radio"
            name={`${uid}-mode`}
            checked={mode === 'merged'}
            onChange={() => sel.setMode('merged')}
          />
          <label htmlFor={`${uid}-merged`}>All structures merged in one mesh</label>
        </div>
        <div className="field compact">
          <label htmlFor={`${uid}-format`}>Format</label>
          <select
            id={`${uid}-format`}
            value={extension}
            onChange={(e) => sel.setExtension(e.target.value as MeshExtension)}
          >
            {EXTENSIONS.map((x) => (
              <option key={x.ext} value={x.ext}>
                {x.label}
              </option>
            ))}
          </select>
        </div>
      </fieldset>
      {caps && !caps.anyStructure && (
        <p className="hint">{connectionName} makes only the structures in this list.</p>
      )}
    </section>
  );
}
