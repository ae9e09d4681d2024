import { createWriteStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, sep, dirname } from 'node:path';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ScanGrants } from '../app/scan-grants.js';
import { freeBytes } from '../platform/free-space.js';
import { formatBytes } from '../../src-shared/format-bytes.js';
import { isStagedDropName, stagedDropOwner, stagedDropOwnerFile } from '../jobs/staged-drops.js';

/**
 * Web mode's stage: a browser cannot hand the app a dropped file's path, so it uploads each file here.
 * The body is streamed to a per-drop folder (keeping the file's path inside a dropped folder) and the
 * answer is a grant for the dropped item's root, the only way the page can later name it to
 * `scans.intake`. Sizes are capped per file and per drop, and the disk keeps a reserve free, so a page
 * cannot fill it.
 */

export interface StageLimits {
  maxFileBytes: number;
  maxDropBytes: number;
  /** Space the stage leaves free on its disk: drops of many scans could otherwise fill it. */
  minFreeBytes: number;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** Generous for CBCT: a large multi-frame file is a few hundred MiB, a whole study a few GiB. */
export const DEFAULT_STAGE_LIMITS: StageLimits = {
  maxFileBytes: 2 * GiB,
  maxDropBytes: 20 * GiB,
  minFreeBytes: 1 * GiB,
};

/** Environment variables that raise or lower the limits, in MiB (README, "Web mode"). */
const STAGE_LIMIT_ENV = {
  file: 'SCAN2MESH_STAGE_MAX_FILE_MB',
  drop: 'SCAN2MESH_STAGE_MAX_DROP_MB',
  free: 'SCAN2MESH_STAGE_MIN_FREE_MB',
} as const;

/** The limits from the environment; a missing or unusable value keeps its default (reported to `warn`). */
export function stageLimitsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  warn: (message: string) => void = () => undefined,
): StageLimits {
  const read = (name: string, fallback: number, zero = false): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const mib = Number(raw);
    if (Number.isFinite(mib) && (mib > 0 || (zero && mib === 0))) return Math.floor(mib * MiB);
    warn(
      `${name}="${raw}" is not a ${zero ? 'non-negative' : 'positive'} number of MiB; the default is used.`,
    );
    return fallback;
  };
  return {
    maxFileBytes: read(STAGE_LIMIT_ENV.file, DEFAULT_STAGE_LIMITS.maxFileBytes),
    maxDropBytes: read(STAGE_LIMIT_ENV.drop, DEFAULT_STAGE_LIMITS.maxDropBytes),
    minFreeBytes: read(STAGE_LIMIT_ENV.free, DEFAULT_STAGE_LIMITS.minFreeBytes, true),
  };
}

type Send = (res: ServerResponse, status: number, body: string, type?: string) => void;

export function createStage(opts: {
  root: string;
  limits: StageLimits;
  grants: ScanGrants;
  send: Send;
  /** The free space of the stage's disk (statfs); tests give a fixed figure. */
  freeSpace?: (dir: string) => Promise<number>;
}) {
  const { root, limits, grants, send, freeSpace = freeBytes } = opts;
  /** Bytes held per drop, counted as they arrive so parallel uploads of one drop share its limit. */
  const used = new Map<string, number>();
  /** The drop folders this stage made: what the session leaves when it ends (web-mode.ts). */
  const made = new Set<string>();
  /**
   * Bytes each upload in progress has still to write (by its declared length), in the order they
   * came: the page sends four at a time, and each read of the free space sees only what the others
   * wrote so far. Counting what those before it will still write, four files that each fit the
   * reserve no longer fill it together.
   */
  const coming = new Map<object, number>();

  const fileWords = (): string =>
    `A file is larger than web mode accepts (at most ${formatBytes(limits.maxFileBytes)} per file). ` +
    `Use the desktop app, or start web mode with ${STAGE_LIMIT_ENV.file} set higher.`;
  const dropWords = (): string =>
    `What was dropped is larger than web mode accepts (at most ${formatBytes(limits.maxDropBytes)} per drop). ` +
    `Add fewer scans at a time, or start web mode with ${STAGE_LIMIT_ENV.drop} set higher.`;

  /** `room`: what may still be written before the reserve, by this upload and those before it. */
  const diskWords = (room: number): string =>
    `The disk that holds web mode's uploads has ${formatBytes(Math.max(0, room + limits.minFreeBytes))} free, and web mode leaves ${formatBytes(limits.minFreeBytes)} free: this file does not fit. ` +
    `Free some space (or remove finished scans), or start web mode with ${STAGE_LIMIT_ENV.free} set lower.`;

  // The answer goes out before the rest of an oversized body is read; closing the connection
  // afterwards stops the browser from sending gigabytes nobody will keep.
  const tooLarge = (res: ServerResponse, words: string, status = 413): void => {
    res.setHeader('Connection', 'close');
    send(res, status, words);
  };

  async function post(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const drop = url.searchParams.get('drop') ?? '';
    const rel = url.searchParams.get('path') ?? '';
    if (!isStagedDropName(drop)) return send(res, 400, 'drop must be a UUID');
    const parts = rel.split('/').filter((p) => p && p !== '.' && p !== '..');
    if (parts.length === 0 || parts.some((p) => p.includes('\\') || p.includes('\0')))
      return send(res, 400, 'path must be a relative file path');
    const dropDir = join(root, drop);
    const target = join(dropDir, ...parts);
    if (!target.startsWith(dropDir + sep)) return send(res, 400, 'path escapes the drop folder');

    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > limits.maxFileBytes) return tooLarge(res, fileWords());
    if ((used.get(drop) ?? 0) + (Number.isFinite(declared) ? declared : 0) > limits.maxDropBytes)
      return tooLarge(res, dropWords());
    // 507 Insufficient Storage: the file is not too large for web mode, the disk is too full for it.
    const length = Number.isFinite(declared) ? declared : 0;
    const me = {};
    coming.set(me, length);
    try {
      mkdirSync(root, { recursive: true, mode: 0o700 });
      const free = await freeSpace(root);
      let ahead = 0;
      for (const [upload, bytes] of coming) {
        if (upload === me) break;
        ahead += bytes;
      }
      const room = free - ahead - limits.minFreeBytes;
      if (length > room) return tooLarge(res, diskWords(room), 507);
      const wrote = (bytes: number): void => void coming.set(me, Math.max(0, length - bytes));
      return await write(req, res, { drop, dropDir, target, item: parts[0] as string, room }, wrote);
    } finally {
      coming.delete(me);
    }
  }

  /** Streams the body to `target` within the limits and `room`, telling `wrote` how far it got. */
  async function write(
    req: IncomingMessage,
    res: ServerResponse,
    to: { drop: string; dropDir: string; target: string; item: string; room: number },
    wrote: (bytes: number) => void,
  ): Promise<void> {
    const { drop, dropDir, target, item, room } = to;

    let written = 0;
    let refusal: string | null = null;
    let status = 413;
    // Copies of patient data: folders the user's alone, as the files are (0600 below).
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    if (!made.has(dropDir)) {
      made.add(dropDir);
      // Beside the drop (not in it, where a dropped file of that name could be): which process made
      // it, so that the next one removes it at start once this one is gone (job-leftovers.ts).
      writeFileSync(stagedDropOwnerFile(dropDir), stagedDropOwner(), { mode: 0o600 });
    }
    const file = createWriteStream(target, { mode: 0o600 });
    const closed = once(file, 'close').catch(() => undefined);
    // Nothing half-written stays behind, and it no longer counts against the drop.
    const discard = async (): Promise<void> => {
      file.destroy();
      await closed;
      rmSync(target, { force: true });
      used.set(drop, Math.max(0, (used.get(drop) ?? 0) - written));
    };
    try {
      // Not pipeline(): on a refusal it would destroy the request, and with it the socket the 413 goes out on.
      for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        written += chunk.length;
        wrote(written);
        const total = (used.get(drop) ?? 0) + chunk.length;
        used.set(drop, total);
        refusal =
          written > limits.maxFileBytes ? fileWords() : total > limits.maxDropBytes ? dropWords() : null;
        if (!refusal && written > room) [refusal, status] = [diskWords(room - written), 507];
        if (refusal) break;
        if (!file.write(chunk)) await once(file, 'drain');
      }
      if (!refusal)
        await new Promise<void>((ok, fail) => file.end((e?: Error | null) => (e ? fail(e) : ok())));
    } catch (e) {
      await discard();
      throw e;
    }
    if (refusal) {
      await discard();
      return tooLarge(res, refusal, status);
    }
    const grant = grants.grant(join(dropDir, item));
    return send(res, 200, JSON.stringify({ grant }), 'application/json');
  }

  return {
    post,
    /** The drop folders this stage made. */
    drops: (): string[] => [...made],
    /** The page checks sizes before it uploads anything, so the user hears at once, not after gigabytes. */
    limits(res: ServerResponse): void {
      send(res, 200, JSON.stringify(limits), 'application/json');
    },
  };
}
