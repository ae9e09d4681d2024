import { randomBytes } from 'node:crypto';

/**
 * The renderer may read a file from disk only when the core handed it out (a finished job's mesh).
 * Each grant is an unguessable id; the transport serves it at an address of its own (web-server.ts,
 * app-protocol.ts) and says which, so the core never names a transport's address.
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
