import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { FaultInjector } from './faults.js';
import { BodyError, readJsonBody } from './http-util.js';
import type { TokenIssuer } from './tokens.js';

interface TokenEndpointDeps {
  config: { clientId: string; clientSecret: string; audience: string };
  faults: FaultInjector;
  tokens: TokenIssuer;
  stats: { tokenRequests: number; tokensIssued: number };
}

/** Status and JSON body of the token endpoint's answer; the server sends it (with its body faults). */
interface TokenAnswer {
  status: number;
  body: unknown;
}

const DEFAULT_TOKEN_LIFETIME_S = 86_400;

const answer = (status: number, body: unknown): TokenAnswer => ({ status, body });

/** The identity provider's client-credentials grant (service-interface.md §4). */
export async function answerTokenRequest(
  req: IncomingMessage,
  deps: TokenEndpointDeps,
): Promise<TokenAnswer> {
  const { stats, config, faults, tokens } = deps;
  stats.tokenRequests++;
  let body: unknown;
  try {
    body = await readJsonBody(req);
  } catch (e) {
    if (!(e instanceof BodyError)) throw e;
    return answer(e.status, {
      error: 'invalid_request',
      error_description: e.message,
    });
  }
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  if (b.grant_type !== 'client_credentials')
    return answer(400, {
      error: 'unsupported_grant_type',
      error_description: 'grant_type must be client_credentials.',
    });
  if (!equalSecret(b.client_id, config.clientId) || !equalSecret(b.client_secret, config.clientSecret))
    return answer(401, { error: 'access_denied', error_description: 'Unauthorized' });
  if (b.audience !== config.audience)
    return answer(403, {
      error: 'access_denied',
      error_description: `Service not enabled within domain: ${String(b.audience)}`,
    });
  const lifetime = faults.options.tokenLifetimeSeconds ?? DEFAULT_TOKEN_LIFETIME_S;
  stats.tokensIssued++;
  return answer(200, {
    access_token: tokens.issue(lifetime),
    token_type: 'Bearer',
    expires_in: lifetime,
    scope: '',
  });
}

function equalSecret(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
