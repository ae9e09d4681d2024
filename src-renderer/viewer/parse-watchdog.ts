/**
 * Stops a loader worker that has gone silent. A worker runs its parse in one go and cannot be asked
 * how it is doing: a file that makes a parser spin (a crafted header, a loader's slow path) would
 * hold one of the viewer's two load slots for minutes or years, and every later mesh waits behind
 * it. The worker speaks at least every 50 ms of reading, welding and our own parsers' bodies (PLY,
 * OBJ); three's STL and Draco loaders parse in silence, so the allowance grows with the file.
 */

/** Silence always allowed: start-up, a small file's parse on a busy machine. */
const BASE_SILENCE_MS = 15_000;
/** The slowest parse rate we take as alive: ASCII STL by three's loader runs at 20 MB/s or more. */
const SLOWEST_BYTES_PER_MS = 1_000;

/** How long a worker loading a file of `bytes` may say nothing before it is taken as stuck. */
export function silenceLimitMs(bytes: number): number {
  return BASE_SILENCE_MS + bytes / SLOWEST_BYTES_PER_MS;
}

export interface Watchdog {
  /** The worker spoke: the silence starts again. */
  heard(): void;
  stop(): void;
}

/** Calls `onStuck` once when `heard` has not been called for `limitMs`. */
export function startWatchdog(limitMs: number, onStuck: (silentMs: number) => void): Watchdog {
  let last = Date.now();
  let timer: ReturnType<typeof setTimeout> | null = null;
  const arm = (wait: number): void => {
    timer = setTimeout(() => {
      const silent = Date.now() - last;
      if (silent >= limitMs) {
        timer = null;
        onStuck(silent);
      } else arm(limitMs - silent);
    }, wait);
  };
  arm(limitMs);
  return {
    heard: () => {
      last = Date.now();
    },
    stop: () => {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}
