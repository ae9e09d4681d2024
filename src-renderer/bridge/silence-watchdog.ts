export interface SilenceWatchdog {
  /** Something came: the quiet spell starts again. */
  feed(): void;
  /** No more watching (the stream ended some other way). */
  stop(): void;
}

/**
 * Calls onSilent once when feed() has not been called for quietMs, with when it last was (or when the
 * watch began). A stream that stays open while the
 * other end answers nothing neither errors nor closes; only its silence tells.
 *
 * A check that runs much later than it was due means this page itself stood still (a long task, a
 * throttled background tab, a laptop asleep): what the app sent meanwhile may be waiting unread, so
 * the watchdog waits one more spell before it calls the app silent, instead of raising a false alarm.
 */
export function watchSilence(quietMs: number, onSilent: (lastHeard: number) => void): SilenceWatchdog {
  // Late by more than half a spell: far beyond the scheduling delays of a loaded machine.
  const lateMs = quietMs / 2;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let due = 0;
  let lastHeard = Date.now();
  let graceUsed = false;
  let over = false;

  const check = (): void => {
    if (over) return;
    if (!graceUsed && Date.now() - due > lateMs) {
      graceUsed = true;
      arm();
      return;
    }
    over = true;
    onSilent(lastHeard);
  };
  const arm = (): void => {
    due = Date.now() + quietMs;
    timer = setTimeout(check, quietMs);
  };
  arm();

  return {
    feed() {
      if (over) return;
      clearTimeout(timer);
      graceUsed = false;
      lastHeard = Date.now();
      arm();
    },
    stop() {
      over = true;
      clearTimeout(timer);
    },
  };
}
