/** What `npm start` says when it cannot open the window, each in one line with the way out. */

export const ELECTRON_INSTALL_COMMAND = 'node node_modules/electron/install.js';

export function runtimeMissingLine(env: NodeJS.ProcessEnv): string {
  const why = env.ELECTRON_SKIP_BINARY_DOWNLOAD
    ? 'ELECTRON_SKIP_BINARY_DOWNLOAD is set, so npm did not download it'
    : 'its download did not happen or failed';
  return (
    `The Electron runtime is not installed (${why}); starting web mode instead. ` +
    `For the desktop window, run \`${ELECTRON_INSTALL_COMMAND}\` on a connected machine, then \`npm start\`.\n`
  );
}

export function nativeBuildFailedLine(): string {
  return (
    'The native modules could not be built for Electron (see above: it needs a C++ compiler, make and python3, ' +
    'or a connection to download prebuilt ones); starting web mode instead.\n'
  );
}
