import { useCallback, useEffect, useRef, useState } from 'react';
import type { SlicePlane, SlicePreview } from '../../src-shared/scans';
import { api, errorText, type ErrorText } from '../bridge/api';

interface SliceWish {
  plane: SlicePlane;
  /** Undefined: the middle slice. */
  index?: number;
  window?: number;
  level?: number;
}

/**
 * One plane's slice from the core. Requests are coalesced: while one is on its way only the newest
 * wish waits, so fast scrolling or dragging never queues up stale slices.
 */
export function useSlice(
  seriesId: string,
  wish: SliceWish,
  enabled: boolean,
): { preview: SlicePreview | null; error: ErrorText | null } {
  const [preview, setPreview] = useState<SlicePreview | null>(null);
  const [error, setError] = useState<ErrorText | null>(null);
  const wanted = useRef<SliceWish | null>(null);
  const busy = useRef(false);

  const pump = useCallback(async () => {
    if (busy.current) return;
    busy.current = true;
    while (wanted.current) {
      const v = wanted.current;
      wanted.current = null;
      try {
        const p = await api.scans.preview({
          seriesId,
          plane: v.plane,
          ...(v.index !== undefined ? { index: v.index } : {}),
          ...(v.window !== undefined ? { window: v.window } : {}),
          ...(v.level !== undefined ? { level: v.level } : {}),
        });
        setPreview(p);
        setError(null);
      } catch (e) {
        setError(errorText(e));
      }
    }
    busy.current = false;
  }, [seriesId]);

  const { plane, index, window, level } = wish;
  useEffect(() => {
    if (!enabled) return;
    wanted.current = {
      plane,
      ...(index !== undefined ? { index } : {}),
      ...(window !== undefined ? { window } : {}),
      ...(level !== undefined ? { level } : {}),
    };
    void pump();
  }, [plane, index, window, level, enabled, pump]);

  return { preview, error };
}
