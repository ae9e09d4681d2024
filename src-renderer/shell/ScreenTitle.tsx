import { useEffect, useRef, type ReactNode } from 'react';

/**
 * The screen's heading, focused when the screen opens so a keyboard or screen-reader user lands at its
 * top instead of staying on the navigation button. Not on the first screen at start: focus stays put.
 */
let first = true;

export function ScreenTitle({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (first) {
      first = false;
      return;
    }
    ref.current?.focus({ preventScroll: true });
  }, []);
  return (
    <h1 id="screen-title" ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}
