import { stillComing } from './output-status.js';
import type { z } from 'zod';
import { AppError } from '../../src-shared/errors.js';
import { OUTPUT_AVAILABLE, type MeshResult, type PollResult } from '../../src-shared/job-spec.js';
import { redact } from '../logging/redact.js';
import { readBody, type HttpResponse, type TransportError } from './http-transport.js';

/** The client's failures, each in words a user can act on. */

const JOB_MAY_EXIST_ACTION =
  'Do not submit it again blindly: check the service (or wait for its webhook) for a job created just now. If there is none, submit it again explicitly (Submit again in the app, `scan2mesh retry <id> --resubmit` on the command line); the service may bill twice.';

/** The pre-signed address was refused (403): storage says it expired or its signature is wrong. */
export class PresignedRefusedError extends AppError {
  constructor(
    what: 'upload' | 'download',
    readonly status: number,
    /** What storage said, as it goes after the status: empty, or ": <text>". */
    readonly detail: string,
  ) {
    super(
      'service',
      `The ${what} address was refused (${status}${detail}); pre-signed addresses expire after a while.`,
      {
        action:
          what === 'upload'
            ? 'Submit the job again to get a fresh upload address.'
            : 'Poll the job again to get fresh download addresses.',
        retryable: true,
      },
    );
  }
}

/** A malformed answer: worth another try for calls that may be repeated. */
export class Transient extends Error {
  constructor(readonly failure: AppError) {
    super(failure.message);
  }
}

/**
 * The service created a job, but its answer cannot be used (an address missing, or where the client
 * does not go): the job exists and will not be processed. Kept as 'job-may-exist' so that nothing
 * sends POST /job again without the user's say, since the service may bill for each job.
 */
export function jobCreatedUnusable(jobId: string, reason: string, action: string): AppError {
  return new AppError(
    'job-may-exist',
    `The service created job ${jobId}, but its answer cannot be used: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}`,
    { action: `${action} ${JOB_MAY_EXIST_ACTION}`, retryable: false },
  );
}

export function jobMayExist(reason: string): AppError {
  return new AppError(
    'job-may-exist',
    `The job request was sent but its outcome is unknown: ${reason}. The job may exist on the service.`,
    { action: JOB_MAY_EXIST_ACTION, retryable: false },
  );
}

/** What went wrong with a connection, in words; the system's own message (an errno) is not shown. */
export function describeConnectionFailure(e: TransportError): string {
  switch (e.code) {
    case 'ECONNREFUSED':
      return 'nothing answers at that address (connection refused)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the name of the computer is not known (check the address and the network)';
    case 'ETIMEDOUT':
    case 'ESOCKETTIMEDOUT':
      return 'no answer came in time';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'the connection was cut';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ENETDOWN':
      return 'the network does not reach that computer';
    default:
      if (e.code && CERTIFICATE_CODES.has(e.code)) return 'its certificate is not trusted for this address';
      // A TransportError's message is ours, in words (a library's own text is only in its cause).
      return e.message;
  }
}

/** OpenSSL's verdicts on a server certificate, as Node reports them in `code`. */
const CERTIFICATE_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** What to do about a failed connection; a certificate the system does not trust has its own remedy. */
export function connectionAction(e: TransportError, what: string): string {
  if (e.code && CERTIFICATE_CODES.has(e.code))
    return `If ${what} uses a certificate of your organisation's own authority, have that authority installed in this computer's trusted certificates (the installed app trusts them; a command line run with plain Node takes NODE_EXTRA_CA_CERTS set to its certificate file); otherwise report it to the service operator.`;
  return `Check the network connection and ${what}, then try again.`;
}

export function networkError(label: string, url: URL, e: TransportError): AppError {
  return new AppError(
    'network',
    `${label}: the connection to ${url.host} failed: ${describeConnectionFailure(e)}.`,
    {
      action: connectionAction(e, 'the service address'),
      retryable: true,
      cause: e,
    },
  );
}

/** A job the service ended as failed, with its own words for why (`reason`, when it gave any). */
export class JobFailedError extends AppError {
  constructor(
    message: string,
    action: string,
    readonly reason: string | undefined,
  ) {
    super('job-failed', message, { action });
  }
}

/**
 * success: false, or no output Available or still coming, is a failed job, told in the service's
 * words. A finished job with some outputs Available and others not is not failed here: the output
 * phase saves the meshes the service made, waits a while for those still coming (a review: a job
 * whose one mesh was Pending was failed at once, and its retry made and billed a second job), and
 * then fails the job naming those it did not make (unavailableOutput).
 */
export function checkFinished(jobId: string, result: PollResult): void {
  if (!result.success) {
    const reason = messageOf(result);
    throw new JobFailedError(
      `The service reports job ${jobId} as failed: ${sentence(reason ?? 'no reason given')}`,
      'Check the scan and the requested structures; submit again or contact the service operator.',
      reason,
    );
  }
  const meshes = result.outputFiles?.meshes ?? [];
  if (meshes.length > 0 && meshes.every((m) => m.status !== OUTPUT_AVAILABLE && !stillComing(m.status)))
    throw new AppError(
      'job-failed',
      `Job ${jobId} finished with no mesh available: ${unavailableOutput(meshes[0] as MeshResult)}.`,
      {
        action: 'Check the requested structures; submit again or contact the service operator.',
      },
    );
}

/**
 * 'The output soft_tissue.stl has status "Failed": <the service's words>' (no full stop); of the
 * local engine, whose one status for a mesh it would not make is its refusal, 'soft_tissue.stl was
 * refused: <its words>'.
 */
export function unavailableOutput(mesh: MeshResult, localEngine = false): string {
  const name = `${mesh.structures.join('+')}${mesh.extension}`;
  const said = messageOf(mesh)?.replace(/\s+/g, ' ');
  // A service's words are cut short (it may send a page); the local engine's are ours, and whole.
  const text = said && !localEngine && said.length > 300 ? `${said.slice(0, 300)}…` : said;
  const why = text ? `: ${text.replace(/[.\s]+$/, '')}` : '';
  return localEngine ? `${name} was refused${why}` : `The output ${name} has status "${mesh.status}"${why}`;
}

/** Text ended by one full stop, whether or not the service's words already end with one. */
const sentence = (text: string): string => `${text.replace(/[.\s]+$/, '')}.`;

export /** The service's own words from an error or result body, wherever it put them. */
function messageOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (Array.isArray(body)) return body.map(messageOf).find(Boolean);
  if (!body || typeof body !== 'object') return undefined;
  const o = body as Record<string, unknown>;
  for (const key of ['message', 'error_description', 'errorMessage', 'error', 'detail', 'reason']) {
    const v = o[key];
    if (typeof v === 'string' && v) return v;
    if (v && typeof v === 'object') {
      const inner = messageOf(v);
      if (inner) return inner;
    }
  }
  return undefined;
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`)
    .join('; ');
}

/**
 * ": <message>" from an error answer's body, short and redacted, or ''. `known`: the credentials
 * the caller sent or holds (its token, its client secret), cut out wherever the answer quotes them:
 * no pattern can know every form a secret takes.
 */
export async function errorDetail(res: HttpResponse, known: readonly string[] = []): Promise<string> {
  const body = (await readBody(res, 64 * 1024).catch(() => Buffer.alloc(0))).toString('utf8');
  return errorDetailOf(body, known);
}

/** ": <message>" from an error body already read, short and redacted, or ''. */
export function errorDetailOf(body: string, known: readonly string[] = []): string {
  const text = withoutSigning(withoutKnown(body, known)).trim();
  if (!text) return '';
  let message = xmlMessage(text) ?? text;
  try {
    // Parsed from the body as it came: JSON may escape a credential (a "/" as "\/", any character
    // as "\uXXXX"), which parsing undoes, so the parsed words are cut again below.
    message = messageOf(JSON.parse(body) as unknown) ?? message;
  } catch {
    // plain text (or XML) stays as it is
  }
  return `: ${redact(withoutKnown(message, known).replace(/\s+/g, ' ')).slice(0, 300)}`;
}

/**
 * Storage services answer a refused pre-signed request with XML that echoes what was signed: the
 * signature, the string and request it was computed over, the access key (S3's SignatureDoesNotMatch).
 * Those elements go, whatever else the answer says (a review found the signature in a job's error).
 */
const SIGNING_ELEMENTS =
  /<(SignatureProvided|StringToSign|StringToSignBytes|CanonicalRequest|CanonicalRequestBytes|AWSAccessKeyId|Credential|X-Amz-[A-Za-z-]+)>[\s\S]*?<\/\1>/gi;

function withoutSigning(text: string): string {
  return text.replace(SIGNING_ELEMENTS, '');
}

/** "Code: Message" of an XML error answer (S3 and its kind), or undefined when it holds neither. */
function xmlMessage(text: string): string | undefined {
  if (!text.startsWith('<')) return undefined;
  const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1]?.trim();
  const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1]?.trim();
  if (!code && !message) return undefined;
  return [code, message].filter(Boolean).join(': ');
}

/**
 * `text` with each of `known` (credentials of 4 characters or more) replaced by "[redacted]", in the
 * forms an answer can quote it: as it is, escaped in JSON (with "/" as "\/" too), percent-encoded.
 */
export function withoutKnown(text: string, known: readonly string[]): string {
  let out = text;
  for (const k of known) {
    if (k.length < 4) continue;
    const json = JSON.stringify(k).slice(1, -1);
    for (const form of new Set([k, json, json.replace(/\//g, '\\/'), encodeURIComponent(k)]))
      out = out.split(form).join('[redacted]');
  }
  return out;
}

/** `value` (parsed JSON) with withoutKnown applied to every string in it, at any depth. */
export function withoutKnownIn(value: unknown, known: readonly string[]): unknown {
  if (typeof value === 'string') return withoutKnown(value, known);
  if (Array.isArray(value)) return value.map((v) => withoutKnownIn(v, known));
  if (value === null || typeof value !== 'object') return value;
  // fromEntries defines each key as JSON.parse does: a "__proto__" key stays a plain key.
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutKnownIn(v, known)]));
}
