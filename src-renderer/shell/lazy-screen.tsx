import { lazy, type ComponentType } from 'react';

export interface LazyScreen {
  Screen: ComponentType;
  /** Fetches and evaluates the screen's code; the same promise every time. */
  preload(): Promise<unknown>;
}

/**
 * A screen whose code is not part of the first page's, so that the first page evaluates less
 * before it can paint. Preloaded while the window is idle after start, a screen opened later is
 * already loaded and renders at once, with no fallback in between; opened sooner, it suspends
 * until its code is there.
 */
export function lazyScreen(load: () => Promise<ComponentType>): LazyScreen {
  let loaded: ComponentType | null = null;
  let loading: Promise<ComponentType> | null = null;
  const preload = (): Promise<ComponentType> =>
    (loading ??= load().then(
      (screen) => (loaded = screen),
      (e: unknown) => {
        // A failed fetch may work when the screen is opened: do not keep the failure.
        loading = null;
        throw e;
      },
    ));
  const Suspending = lazy(() => preload().then((screen) => ({ default: screen })));
  function Screen() {
    const Loaded = loaded;
    return Loaded ? <Loaded /> : <Suspending />;
  }
  return { Screen, preload };
}

/** One screen at a time, each when the window has nothing else to do, so none delays input. */
export function preloadWhenIdle(screens: readonly LazyScreen[]): void {
  const idle = (run: () => void): void => {
    if (typeof requestIdleCallback === 'function') requestIdleCallback(run, { timeout: 2000 });
    else setTimeout(run, 50);
  };
  const next = (i: number): void => {
    const screen = screens[i];
    if (!screen) return;
    idle(() => {
      screen.preload().then(
        () => next(i + 1),
        () => next(i + 1),
      );
    });
  };
  next(0);
}
