import { randomBytes } from 'node:crypto';

type TokenCheck = 'ok' | 'missing' | 'malformed' | 'expired' | 'unknown';

/** Opaque bearer tokens with an expiry, held in memory: a restarted engine asks clients to sign in again. */
export class TokenIssuer {
  private readonly tokens = new Map<string, number>();
  issued = 0;

  issue(lifetimeSeconds: number): string {
    const token = randomBytes(32).toString('base64url');
    this.tokens.set(token, Date.now() + lifetimeSeconds * 1000);
    this.issued++;
    // Drop long-expired tokens so a long-running engine does not grow.
    if (this.tokens.size > 1000)
      for (const [t, exp] of this.tokens) if (exp < Date.now()) this.tokens.delete(t);
    return token;
  }

  check(authorization: string | undefined): TokenCheck {
    if (!authorization) return 'missing';
    const m = /^Bearer ([A-Za-z0-9_-]{20,200})$/.exec(authorization.trim());
    if (!m) return 'malformed';
    const expires = this.tokens.get(m[1] as string);
    if (expires === undefined) return 'unknown';
    return expires <= Date.now() ? 'expired' : 'ok';
  }

  /** Every token issued so far stops working, as after a key rotation on the identity provider. */
  expireAll(): void {
    for (const t of this.tokens.keys()) this.tokens.set(t, 0);
  }
}
