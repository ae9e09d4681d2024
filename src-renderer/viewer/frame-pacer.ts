/**
 * When the viewer draws its next batch: in the next animation frame, once however often it was
 * asked before that frame. A software renderer's batches go to a target of their own
 * (offscreen-picture.ts), so no frame waits for them to be rasterised.
 */
export class FramePacer {
  private request = 0;
  private stopped = false;

  constructor(private readonly step: () => void) {}

  /** One step soon, however often asked before it runs. */
  schedule(): void {
    if (this.request !== 0 || this.stopped) return;
    this.request = requestAnimationFrame(() => {
      this.request = 0;
      if (!this.stopped) this.step();
    });
  }

  stop(): void {
    this.stopped = true;
    cancelAnimationFrame(this.request);
    this.request = 0;
  }
}

/** Resolves at the next animation frame, with its time: for code that waits a frame at a time. */
export const nextFrame = (): Promise<number> => new Promise((resolve) => requestAnimationFrame(resolve));
