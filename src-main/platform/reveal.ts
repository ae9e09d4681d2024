import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { existsSync } from 'node:fs';
import { AppError } from '../../src-shared/errors.js';

/** Shows a file in the system file manager, for web mode and the command line (Electron uses shell.showItemInFolder). */
export async function revealWithSystemTools(path: string): Promise<void> {
  if (!existsSync(path)) throw new AppError('not-found', `The file is no longer there: ${path}`);
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', ['-R', path]]
      : process.platform === 'win32'
        ? ['explorer.exe', [`/select,${path}`]]
        : ['xdg-open', [dirname(path)]];
  await new Promise<void>((ok, fail) => {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.once('error', () =>
      fail(
        new AppError('internal', 'No file manager could be opened on this computer.', {
          action: `The file is at ${path}`,
        }),
      ),
    );
    child.once('spawn', () => {
      child.unref();
      ok();
    });
  });
}
