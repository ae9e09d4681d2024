import { useCallback, useRef, useState, type DragEvent } from 'react';
import { transport } from '../bridge/api';
import { dragHasFiles, grabDrop, walkDrop } from '../bridge/drop-collect';
import type { DroppedItem } from '../bridge/dropped-item';

/**
 * The whole window is a drop target for scans. Enter and leave events fire for every child crossed,
 * so a counter tells when the drag really left the window.
 */
export function useWindowDrop(enabled: boolean, onItems: (items: DroppedItem[]) => void) {
  const [over, setOver] = useState(false);
  const depth = useRef(0);

  const onDragEnter = useCallback(
    (e: DragEvent) => {
      if (!enabled || !dragHasFiles(e.dataTransfer)) return;
      e.preventDefault();
      depth.current++;
      setOver(true);
    },
    [enabled],
  );
  const onDragOver = useCallback(
    (e: DragEvent) => {
      if (!enabled || !dragHasFiles(e.dataTransfer)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
    },
    [enabled],
  );
  const onDragLeave = useCallback(
    (e: DragEvent) => {
      if (!enabled || !dragHasFiles(e.dataTransfer)) return;
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) setOver(false);
    },
    [enabled],
  );
  const onDrop = useCallback(
    (e: DragEvent) => {
      depth.current = 0;
      setOver(false);
      if (!enabled || !dragHasFiles(e.dataTransfer)) return;
      e.preventDefault();
      if (transport === 'electron') {
        // Electron resolves real paths from the File objects, dropped folders included.
        onItems([...e.dataTransfer.files].map((file) => ({ file })));
        return;
      }
      // The entries must be taken now: the browser empties the DataTransfer once this handler returns.
      const grabbed = grabDrop(e.dataTransfer);
      void walkDrop(grabbed).then(onItems);
    },
    [enabled, onItems],
  );

  return { over, handlers: { onDragEnter, onDragOver, onDragLeave, onDrop } };
}
