import { useEffect, useRef, useState } from 'react';
import type { DragEvent } from 'react';
import { SceneList } from './SceneList.js';
import type { SceneController } from './scene-controller.js';
import { syncJobMeshes, openMeshFiles } from './viewer-actions.js';
import type { ViewerMeshSource } from './viewer-actions.js';
import { ViewerStatus } from './ViewerStatus.js';
import { ViewerToolbar } from './ViewerToolbar.js';
import { ViewerViewport } from './ViewerViewport.js';
import './viewer.css';
import './viewer-panel.css';

export type { ViewerMeshSource } from './viewer-actions.js';

interface ViewerScreenProps {
  /** Outputs of a finished job, shown together in the coordinates the service wrote them in. */
  meshes?: ViewerMeshSource[];
}

function hasFiles(e: DragEvent): boolean {
  return [...e.dataTransfer.types].includes('Files');
}

/** The mesh viewer: a full screen with tools, the 3D view, the scene list and a status line. */
export function ViewerScreen({ meshes }: ViewerScreenProps) {
  const controllerRef = useRef<SceneController | null>(null);
  const [dropping, setDropping] = useState(false);

  useEffect(() => {
    if (meshes) syncJobMeshes(meshes);
  }, [meshes]);

  return (
    <section
      className={`vw${dropping ? ' vw-dropping' : ''}`}
      aria-label="Mesh viewer"
      onDragOver={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
        setDropping(true);
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDropping(false);
      }}
      onDrop={(e) => {
        if (!hasFiles(e)) return;
        // Dropped here, the files are meshes to view, not scans for the rest of the app.
        e.preventDefault();
        e.stopPropagation();
        setDropping(false);
        openMeshFiles([...e.dataTransfer.files]);
      }}
    >
      <ViewerToolbar controllerRef={controllerRef} />
      <div className="vw-body">
        <ViewerViewport controllerRef={controllerRef} />
        <SceneList />
      </div>
      <ViewerStatus />
    </section>
  );
}
