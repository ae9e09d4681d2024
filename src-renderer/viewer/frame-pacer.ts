/**
 * When the viewer draws its next batch. On a GPU, in the animation frame itself. With a software
 * renderer the compositor reads the canvas back at the end of each frame that drew on it, and the
 * main thread waits there until the GPU process has rasterised every triangle of the frame: a
 * batch drawn inside the frame puts all of its raster time into that frame's task. Drawn in a
 * task of its own just after a frame (and flushed), the batch is rasterised while the main thread
 * idles until the next frame, whose read-back then finds it done or nearly so.
 */
export class FramePacer {
  private request = 0;
  /** A step is on its way: requested from the next frame, or queued just after it. */
  private pending = false;
  private stopped = false;
  private frameStart = 0;
  private readonly channel: MessageChannel | null;

  /**
   * `step` gets, when it runs after a frame, how long that frame held the main thread from its
   * animation callbacks on (layout, paint, and the read-back's wait for the last batch drawn).
   */
  constructor(
    private readonly step: (frameMs: number | null) => void,
    afterFrame: boolean,
  ) {
    this.channel = afterFrame ? new MessageChannel() : null;
    if (this.channel) this.channel.port1.onmessage = () => this.run(performance.now() - this.frameStart);
  }

  /** One step soon, however often asked before it runs. */
  schedule(): void {
    if (this.pending || this.stopped) return;
    this.pending = true;
    this.request = requestAnimationFrame(() => {
      this.request = 0;
      // Not the frame's timestamp: on a busy machine the thread may begin the frame well after it.
      this.frameStart = performance.now();
      // A message posted from a frame callback is handled once that frame is produced.
      if (this.channel) this.channel.port2.postMessage(null);
      else this.run(null);
    });
  }

  private run(frameMs: number | null): void {
    this.pending = false;
    if (!this.stopped) this.step(frameMs);
  }

  stop(): void {
    this.stopped = true;
    cancelAnimationFrame(this.request);
    if (this.channel) {
      this.channel.port1.onmessage = null;
      this.channel.port1.close();
      this.channel.port2.close();
    }
  }
}
