import { existsSync } from 'node:fs';

/** Debian's Chromium; Playwright's own browser download cannot work on these machines. */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const found = candidates.find((p): p is string => !!p && existsSync(p));
  if (!found)
    throw new Error('Chromium not found: install Debian\'s "chromium" package or set CHROMIUM_PATH.');
  return found;
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  // WebGL2 through SwiftShader for the mesh viewer.
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
];
