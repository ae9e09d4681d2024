import { useEffect, useRef, useState } from 'react';
import type { SeriesSummary } from '../../src-shared/scans';
import { SliceReview } from '../review/SliceReview';
import './slice-preview.css';

/**
 * The scan as an imaging tool shows it: axial, coronal and sagittal views linked by a crosshair
 * (see review/SliceReview). Only cards on screen ask for pixels: a batch of fifty scans must not
 * decode fifty volumes at once.
 */
export function SlicePreview({
  series,
  label,
  usable,
}: {
  series: SeriesSummary;
  label: string;
  usable: boolean;
}) {
  const [visible, setVisible] = useState(false);
  const boxRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const el = boxRef.current;
    if (!el || typeof IntersectionObserver === 'undefined') {
      setVisible(true);
      return;
    }
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        setVisible(true);
        io.disconnect();
      }
    });
    io.observe(el);
    return () => io.disconnect();
  }, []);

  if (!series.previewable)
    return (
      <div className="preview preview-none" data-testid="slice-preview">
        <p className="muted">
          No preview: this scan’s pixels cannot be decoded on this computer.
          {usable ? ' It can still be sent.' : ''}
        </p>
      </div>
    );

  return (
    <div ref={boxRef} className="preview" data-testid="slice-preview">
      <SliceReview seriesId={series.id} label={label} enabled={visible} />
    </div>
  );
}
