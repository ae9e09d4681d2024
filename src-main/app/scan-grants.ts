import { randomBytes } from 'node:crypto';
import { basename, isAbsolute, resolve } from 'node:path';
import type { ScanGrant } from '../../src-shared/contract.js';
import { AppError } from '../../src-shared/errors.js';

/**
 * The files and folders the user chose, as the only paths the renderer may make the core read
 * (architecture.md: "the renderer names files only through grants"). A transport issues a grant
 * where it knows a person chose the path: the native open dialog, a drop in the Electron window (the
 * preload reads the dropped File's real path), or a file uploaded to web mode's stage. The renderer
 * gets back an unguessable id and hands only ids to `scans.intake`, so a compromised page can name
 * nothing else on the disk.
 */
export class ScanGrants {
  private readonly byId = new Map<string, string>();
  private readonly byPath = new Map<string, string>();

  /** Grants a path the user chose; the same path keeps its id. */
  grant(path: string): ScanGrant {
    if (!isAbsolute(path)) throw new AppError('internal', 'Only full paths can be granted.');
    const full = resolve(path);
    let id = this.byPath.get(full);
    if (!id) {
      id = randomBytes(18).toString('base64url');
      this.byId.set(id, full);
      this.byPath.set(full, id);
    }
    return { id, name: basename(full) || full };
  }

  /** The paths behind the ids, in order; one unknown id refuses the lot, in words. */
  resolveAll(ids: readonly string[]): string[] {
    return ids.map((id) => {
      const path = this.byId.get(id);
      if (path === undefined)
        throw new AppError(
          'not-found',
          'The app was not given that file: it was not chosen in this session.',
          {
            action: 'Add the scan again with "Add scans", or drop it onto the window.',
          },
        );
      return path;
    });
  }
}
