/**
 * Faults the protocol server can inject, for tests of the client. All are deterministic: a test says
 * how many or what share of requests fail, never leaves it to chance.
 */
import type { BodyFaults } from './http-util.js';

export type EndpointKind = 'token' | 'job' | 'upload' | 'notify' | 'poll' | 'download' | 'testAuth';

export interface FaultOptions {
  /** Share (0..1) of requests answered 500 instead of being handled, spread evenly. */
  status500?: { share: number; on?: EndpointKind[] };
  /** Share (0..1) of requests answered 502, as by a gateway whose service is down; spread evenly. */
  status502?: { share: number; on?: EndpointKind[] };
  /**
   * Share (0..1) of requests whose connection is reset once their headers are in, before any of the
   * body is read; a client that waits for "100 Continue" has then sent no body. Spread evenly.
   */
  resetBeforeBody?: { share: number; on?: EndpointKind[] };
  /**
   * The next `count` requests are carried out, but their answer is replaced by a 504, as a gateway
   * gives when the service behind it was slow: a job request still creates its job.
   */
  answerLost504?: { count: number; on?: EndpointKind[] };
  /** The next `count` requests are answered 429 with Retry-After. */
  status429?: { count: number; retryAfterSeconds: number; on?: EndpointKind[] };
  /** The next `count` requests lose their connection halfway through a body: the upload's, else the answer's. */
  dropConnection?: { count: number; on?: EndpointKind[] };
  /** Answers are written at this speed. */
  slowBody?: { bytesPerSecond: number; on?: EndpointKind[] };
  /** The next `count` JSON answers are cut short into malformed JSON. */
  malformedJson?: { count: number; on?: EndpointKind[] };
  /** Lifetime of issued tokens in seconds, as expires_in says (default 86400). */
  tokenLifetimeSeconds?: number;
  /** Every token is refused with 401, as a service would for a token meant for another audience. */
  rejectAllTokens?: boolean;
  /** Jobs finish with success: false and this message. */
  failJobs?: { message: string };
  /** Finished outputs report this status instead of Available. */
  outputStatus?: string;
  /** The outputs at these positions (0-based) report this status and message; the others are Available. */
  outputStatusAt?: Record<number, { status: string; message?: string }>;
  /** Lifetime of pre-signed addresses in seconds (default 3600); 0 or less makes them expired when issued. */
  presignedLifetimeSeconds?: number;
  /** A 202 poll answer carries Retry-After with this many seconds. */
  pollRetryAfterSeconds?: number;
  /** PUT on the notify address is answered 405, as by a service that takes only POST. */
  notifyPostOnly?: boolean;
}

type Counted = 'status429' | 'dropConnection' | 'malformedJson' | 'answerLost504';
type Shared = 'status500' | 'status502' | 'resetBeforeBody';

export class FaultInjector {
  injected = 0;
  private opts: FaultOptions;
  private used: Record<Counted, number> = {
    status429: 0,
    dropConnection: 0,
    malformedJson: 0,
    answerLost504: 0,
  };
  private shares: Record<Shared, number> = { status500: 0, status502: 0, resetBeforeBody: 0 };

  constructor(opts: FaultOptions = {}) {
    this.opts = opts;
  }

  get options(): FaultOptions {
    return this.opts;
  }

  /** Replaces the faults and resets their counters. */
  set(opts: FaultOptions): void {
    this.opts = opts;
    this.used = { status429: 0, dropConnection: 0, malformedJson: 0, answerLost504: 0 };
    this.shares = { status500: 0, status502: 0, resetBeforeBody: 0 };
  }

  /** Whether this request gets a 500 (an even spread: share 0.5 fails every other request). */
  take500(kind: EndpointKind): boolean {
    return this.takeShared('status500', kind);
  }

  take502(kind: EndpointKind): boolean {
    return this.takeShared('status502', kind);
  }

  takeResetBeforeBody(kind: EndpointKind): boolean {
    return this.takeShared('resetBeforeBody', kind);
  }

  take429(kind: EndpointKind): number | undefined {
    const f = this.opts.status429;
    return f && this.takeCounted('status429', f.count, f.on, kind) ? f.retryAfterSeconds : undefined;
  }

  takeDrop(kind: EndpointKind): boolean {
    const f = this.opts.dropConnection;
    return !!f && this.takeCounted('dropConnection', f.count, f.on, kind);
  }

  takeAnswerLost(kind: EndpointKind): boolean {
    const f = this.opts.answerLost504;
    return !!f && this.takeCounted('answerLost504', f.count, f.on, kind);
  }

  takeMalformed(kind: EndpointKind): boolean {
    const f = this.opts.malformedJson;
    return !!f && this.takeCounted('malformedJson', f.count, f.on, kind);
  }

  slowBytesPerSecond(kind: EndpointKind): number | undefined {
    const f = this.opts.slowBody;
    return f && applies(f.on, kind) ? f.bytesPerSecond : undefined;
  }

  /** The faults of one answer's body: cut halfway (counted, so taken now) and its speed. */
  bodyFaults(kind: EndpointKind): BodyFaults {
    return { drop: this.takeDrop(kind), bytesPerSecond: this.slowBytesPerSecond(kind) };
  }

  private takeShared(name: Shared, kind: EndpointKind): boolean {
    const f = this.opts[name];
    if (!f || !applies(f.on, kind)) return false;
    this.shares[name] += f.share;
    if (this.shares[name] < 1) return false;
    this.shares[name] -= 1;
    this.injected++;
    return true;
  }

  private takeCounted(
    name: Counted,
    count: number,
    on: EndpointKind[] | undefined,
    kind: EndpointKind,
  ): boolean {
    if (!applies(on, kind) || this.used[name] >= count) return false;
    this.used[name]++;
    this.injected++;
    return true;
  }
}

function applies(on: EndpointKind[] | undefined, kind: EndpointKind): boolean {
  return !on || on.includes(kind);
}
