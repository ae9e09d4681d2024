import { structureDisplayName } from '../../src-shared/structures.js';
import { formatSize, formatTriangles } from './format-units.js';
import { MeasurementList } from './MeasurementList.js';
import { unitHint } from './unit-hint.js';
import { removeMesh } from './viewer-actions.js';
import { unionBounds, useViewerStore } from './viewer-store.js';
import type { SceneItem } from './viewer-store.js';

function structureLabel(item: SceneItem): string | null {
  if (item.structures.length === 0) return null;
  return item.structures.map(structureDisplayName).join(', ');
}

function SceneRow({ item }: { item: SceneItem }) {
  const update = useViewerStore((s) => s.updateItem);
  const label = structureLabel(item);
  const idBase = `vw-item-${item.id}`;
  const hint = unitHint(item.name, item.bounds);
  const hintDismissed = useViewerStore((s) => s.unitHintDismissed.includes(item.id));
  const dismissHint = useViewerStore((s) => s.dismissUnitHint);
  return (
    <li className="vw-item" data-testid="scene-item" data-mesh-id={item.id}>
      <div className="vw-item-head">
        <input
          type="checkbox"
          id={`${idBase}-visible`}
          checked={item.visible}
          onChange={(e) => update(item.id, { visible: e.target.checked })}
          aria-label={`Show ${item.name}`}
        />
        <input
          type="color"
          className="vw-swatch"
          value={item.colour}
          onChange={(e) => update(item.id, { colour: e.target.value })}
          aria-label={`Colour of ${item.name}`}
        />
        <span className="vw-item-name" title={item.name}>
          {item.name}
        </span>
        <button
          type="button"
          className="vw-icon-button"
          onClick={() => removeMesh(item.id)}
          aria-label={`Remove ${item.name}`}
          title="Remove from the scene"
        >
          ×
        </button>
      </div>
      {label && <div className="vw-item-structures">{label}</div>}
      <div className="vw-item-facts">
        {formatTriangles(item.triangles)} · {formatSize(item.bounds)}
      </div>
      {hint && !hintDismissed && (
        <div className="vw-unit-hint" role="note" data-testid="unit-hint">
          <span>
            {hint.message} The viewer shows files as millimetres; export the mesh in mm to measure it.
          </span>
          <button
            type="button"
            className="vw-icon-button"
            onClick={() => dismissHint(item.id)}
            aria-label={`Dismiss the size hint for ${item.name}`}
            title="The size is right"
          >
            ×
          </button>
        </div>
      )}
      <label className="vw-opacity">
        <span>Opacity</span>
        <input
          type="range"
          min={0.05}
          max={1}
          step={0.05}
          value={item.opacity}
          onChange={(e) => update(item.id, { opacity: Number(e.target.value) })}
          aria-label={`Opacity of ${item.name}`}
          aria-valuetext={`${Math.round(item.opacity * 100)}%`}
        />
        <output>{Math.round(item.opacity * 100)}%</output>
      </label>
    </li>
  );
}

export function SceneList() {
  const items = useViewerStore((s) => s.items);
  const shown = items.filter((i) => i.visible);
  const bounds = unionBounds(shown);
  const triangles = shown.reduce((n, i) => n + i.triangles, 0);
  return (
    <aside className="vw-panel" aria-labelledby="vw-scene-heading">
      <h2 id="vw-scene-heading" className="vw-heading">
        Scene
      </h2>
      {items.length === 0 ? (
        <p className="vw-muted">No meshes yet.</p>
      ) : (
        <>
          <ul className="vw-items">
            {items.map((item) => (
              <SceneRow key={item.id} item={item} />
            ))}
          </ul>
          <p className="vw-summary" data-testid="scene-summary">
            Shown: {formatTriangles(triangles)}
            {bounds ? `, ${formatSize(bounds)}` : ''}
          </p>
        </>
      )}
      <MeasurementList />
    </aside>
  );
}
