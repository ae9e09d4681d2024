import { expect, type Page } from '@playwright/test';

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

interface CanvasQuery {
  /** Points to sample, as fractions of the canvas size. */
  points: [number, number][];
  /** When set, also count the pixels within a small distance of this colour. */
  near?: [number, number, number];
}

/**
 * Reads the viewer's WebGL canvas (kept with preserveDrawingBuffer) once its picture is whole (a large
 * mesh is drawn a few chunks per frame). Read in the page through a 2D canvas, so the pixels are
 * exactly what was drawn, not a screenshot. Only the answers cross to the test, never the whole image.
 */
export async function readViewerCanvas(
  page: Page,
  query: CanvasQuery,
): Promise<{ samples: Rgb[]; nearCount: number }> {
  await expect(page.getByTestId('viewer-canvas')).toHaveAttribute('data-frame', 'complete');
  return page.getByTestId('viewer-canvas').evaluate((el, { points, near }) => {
    // Runs in the page; the e2e project is compiled without the DOM library, hence the local types.
    interface Canvas {
      width: number;
      height: number;
    }
    interface Ctx {
      drawImage(c: Canvas, x: number, y: number): void;
      getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
    }
    const doc = (
      globalThis as unknown as {
        document: { createElement(t: 'canvas'): Canvas & { getContext(t: '2d'): Ctx } };
      }
    ).document;
    const src = el as unknown as Canvas;
    const copy = doc.createElement('canvas');
    copy.width = src.width;
    copy.height = src.height;
    const ctx = copy.getContext('2d');
    ctx.drawImage(src, 0, 0);
    const samples = points.map(([fx, fy]) => {
      const d = ctx.getImageData(
        Math.round(fx * (src.width - 1)),
        Math.round(fy * (src.height - 1)),
        1,
        1,
      ).data;
      return { r: d[0]!, g: d[1]!, b: d[2]! };
    });
    let nearCount = 0;
    if (near) {
      const { data } = ctx.getImageData(0, 0, src.width, src.height);
      for (let i = 0; i < data.length; i += 4) {
        const d =
          Math.abs(data[i]! - near[0]) + Math.abs(data[i + 1]! - near[1]) + Math.abs(data[i + 2]! - near[2]);
        if (d < 40) nearCount++;
      }
    }
    return { samples, nearCount };
  }, query);
}
