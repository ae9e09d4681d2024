import { randomBytes } from 'node:crypto';

/**
 * The renderer may read a file from disk only when the core handed it out (a finished job's mesh).
 * Each grant is an unguessable id that the transport serves (web: /api/file/ID, Electron: app://scan2mesh/files/ID).
 */
export class FileGrants {
  private readonly byId = new Map<string, string>();
  private readonly byPath = new Map<string, string>();

  grant(path: string): string {
    const existing = this.byPath.get(path);
    if (existing) return existing;
    const id = randomBytes(18).toString('base64url');
    this.byId.set(id, path);
    this.byPath.set(path, id);
    return id;
  }

  resolve(id: string): string | undefined {
    return this.byId.get(id);
  }
}

/** Same-origin address of a granted file for the renderer of the given transport. */
export function grantUrl(transport: 'electron' | 'web', id: string): string {
  return transport === 'electron' ? `app://scan2mesh/files/${id}` : `/api/file/${id}`;
}
