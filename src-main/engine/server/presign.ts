import { createHmac, timingSafeEqual } from 'node:crypto';

type PresignCheck = 'ok' | 'missing' | 'expired' | 'bad-signature';

/**
 * Pre-signed addresses as cloud storage makes them: the method, path and expiry are signed with a
 * key only the engine knows, and the signature and expiry travel in the query string.
 */
export class Presigner {
  constructor(private readonly key: Buffer) {}

  sign(method: 'GET' | 'PUT', origin: string, path: string, lifetimeSeconds: number): string {
    const expires = Math.floor(Date.now() / 1000) + Math.floor(lifetimeSeconds);
    const url = new URL(path, origin);
    url.searchParams.set('X-Expires', String(expires));
    url.searchParams.set('X-Signature', this.signature(method, url.pathname, expires));
    return url.href;
  }

  verify(method: string, pathname: string, query: URLSearchParams): PresignCheck {
    const expires = query.get('X-Expires');
    const signature = query.get('X-Signature');
    if (!expires || !signature || !/^\d+$/.test(expires)) return 'missing';
    const expected = Buffer.from(this.signature(method, pathname, Number(expires)));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad-signature';
    return Number(expires) * 1000 < Date.now() ? 'expired' : 'ok';
  }

  private signature(method: string, pathname: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${method}\n${pathname}\n${expires}`).digest('hex');
  }
}
