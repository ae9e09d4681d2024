import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ScanGrants } from '../app/scan-grants.js';
import type { ScanGrant } from '../../src-shared/contract.js';
import { BodyReader, readStageManifest } from './stage-body.js';
import { writeBatch, type StagedFile } from './stage-write.js';
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
/** What a file or a folder takes of the disk at the least, counted against the limits. */
const BLOCK = 4096;
/** Folders deep a dropped file may lie: deeper than any export, short of a million folders in one upload. */
const MAX_PATH_PARTS = 32;
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
  /**
   * The paths each drop holds or is being written to: a second file for one of them is refused, as two
   * copies at once would write into one file (the page stages same-named things apart, web-bridge.ts).
   */
  const held = new Map<string, Set<string>>();
  /** A path as the disk tells paths apart: without case on macOS's and Windows' usual disks. */
  const pathKey = (target: string): string =>
    process.platform === 'darwin' || process.platform === 'win32' ? target.toLowerCase() : target;

  const fileWords = (): string =>
    `A file is larger than web mode accepts (at most ${formatBytes(limits.maxFileBytes)} per file). ` +
    `Use the desktop app, or start web mode with ${STAGE_LIMIT_ENV.file} set higher.`;
  const dropWords = (): string =>
    `What was dropped is larger than web mode accepts (at most ${formatBytes(limits.maxDropBytes)} per drop). ` +
    `Add fewer scans at a time, or start web mode with ${STAGE_LIMIT_ENV.drop} set higher.`;

  /** `room`: what may still be written before the reserve, by this upload and those before it. */
  const diskWords = (room: number): string =>
    `The disk that holds web mode's uploads has ${formatBytes(Math.max(0, room + limits.minFreeBytes))} free, and web mode leaves ${formatBytes(limits.minFreeBytes)} free: what is being added does not fit. ` +
    `Free some space (or remove finished scans), or start web mode with ${STAGE_LIMIT_ENV.free} set lower.`;

  // The answer goes out before the rest of an oversized body is read; closing the connection
  // afterwards stops the browser from sending gigabytes nobody will keep.
  const tooLarge = (res: ServerResponse, words: string, status = 413): void => {
    res.setHeader('Connection', 'close');
    send(res, status, words);
  };

  /** A 400 in words; the connection closes, as the rest of the body is not read. */
  const badRequest = (res: ServerResponse, words: string): void => {
    res.setHeader('Connection', 'close');
    send(res, 400, words);
  };

  /** Drops the page gave up on: their folders are going, and nothing more of them is kept. */
  const released = new Set<string>();
  /** The batches of each drop being received and written: a release waits for them to end. */
  const underWay = new Map<string, Set<Promise<void>>>();

  /** A batch of dropped files (src-shared/stage-batch.ts): all of them are kept, or none. */
  async function post(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const drop = url.searchParams.get('drop') ?? '';
    if (!isStagedDropName(drop)) return badRequest(res, 'drop must be a UUID');
    if (released.has(drop)) {
      res.setHeader('Connection', 'close');
      return send(
        res,
        410,
        'This drop was given up (a part of it could not be copied): add the scans again.',
      );
    }
    const batches = underWay.get(drop) ?? new Set<Promise<void>>();
    underWay.set(drop, batches);
    const batch = receive(req, res, drop);
    batches.add(batch);
    try {
      await batch;
    } finally {
      batches.delete(batch);
      if (batches.size === 0) underWay.delete(drop);
    }
  }

  async function receive(req: IncomingMessage, res: ServerResponse, drop: string): Promise<void> {
    const body = new BodyReader(req.iterator({ destroyOnReturn: false }) as AsyncIterator<Buffer>);
    const manifest = await readStageManifest(body);
    if (typeof manifest === 'string') return badRequest(res, manifest);
    const dropDir = join(root, drop);
    const files: StagedFile[] = [];
    let total = 0;
    for (const { path, size } of manifest) {
      const parts = path.split('/').filter((p) => p && p !== '.' && p !== '..');
      if (parts.length === 0 || parts.some((p) => p.includes('\\') || p.includes('\0')))
        return badRequest(res, 'Each path must be a relative file path.');
      if (parts.length > MAX_PATH_PARTS)
        return badRequest(res, `A path of the drop is more than ${MAX_PATH_PARTS} folders deep.`);
      const target = join(dropDir, ...parts);
      if (!target.startsWith(dropDir + sep)) return badRequest(res, 'A path escapes the drop folder.');
      if (size > limits.maxFileBytes) return tooLarge(res, fileWords());
      files.push({ target, item: parts[0] as string, size });
      // A file takes at least a block of the disk, however short: a drop of empty files is no free lunch.
      total += Math.max(size, BLOCK);
    }
    // A folder takes a block too: a deep path of empty files is no free lunch either.
    const folders = new Set<string>();
    for (const f of files)
      for (let d = dirname(f.target); d.startsWith(dropDir + sep); d = dirname(d)) folders.add(d);
    total += folders.size * BLOCK;
    // The manifest's sizes are the body's: a length that says otherwise is a malformed upload.
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared !== body.taken + files.reduce((n, f) => n + f.size, 0))
      return badRequest(res, "The upload's length is not that of its list and files together.");
    const holds = held.get(drop) ?? new Set<string>();
    const keys = files.map((f) => pathKey(f.target));
    if (new Set(keys).size < keys.length || keys.some((k) => holds.has(k)))
      return badRequest(
        res,
        'Two files of the drop have the same path: nothing of this part of the drop was kept. Add the scans again.',
      );
    // The batch's bytes count against its drop from the start, so that batches sent at once share it.
    if ((used.get(drop) ?? 0) + total > limits.maxDropBytes) return tooLarge(res, dropWords());
    used.set(drop, (used.get(drop) ?? 0) + total);
    held.set(drop, holds);
    for (const k of keys) holds.add(k);
    const me = {};
    coming.set(me, total);
    let kept = false;
    try {
      mkdirSync(root, { recursive: true, mode: 0o700 });
      const free = await freeSpace(root);
      let ahead = 0;
      for (const [upload, bytes] of coming) {
        if (upload === me) break;
        ahead += bytes;
      }
      // 507 Insufficient Storage: the files are not too large for web mode, the disk is too full for them.
      const room = free - ahead - limits.minFreeBytes;
      if (total > room) return tooLarge(res, diskWords(room), 507);
      const wrote = (bytes: number): void => void coming.set(me, Math.max(0, total - bytes));
      if (!made.has(dropDir)) {
        mkdirSync(dropDir, { recursive: true, mode: 0o700 });
        made.add(dropDir);
        // Beside the drop (not in it, where a dropped file of that name could be): which process made
        // it, so that the next one removes it at start once this one is gone (job-leftovers.ts).
        writeFileSync(stagedDropOwnerFile(dropDir), stagedDropOwner(), { mode: 0o600 });
      }
      // The body may be unread still when this fails: the connection closes after the answer.
      res.setHeader('Connection', 'close');
      const refusal = await writeBatch(body, files, wrote);
      if (refusal) return send(res, refusal.status, refusal.words);
      res.removeHeader('Connection');
      kept = true;
    } finally {
      coming.delete(me);
      if (!kept) {
        used.set(drop, Math.max(0, (used.get(drop) ?? 0) - total));
        for (const k of keys) holds.delete(k);
      }
    }
    // One grant per dropped item (a file, or a top-level folder), the same for each of its files.
    const grantOf = new Map<string, ScanGrant>();
    const grantFor = (item: string): ScanGrant => {
      let g = grantOf.get(item);
      if (!g) grantOf.set(item, (g = grants.grant(join(dropDir, item))));
      return g;
    };
    return send(res, 200, JSON.stringify({ grants: files.map((f) => grantFor(f.item)) }), 'application/json');
  }

  return {
    post,
    /**
     * A drop the page gave up on (a batch failed, so nothing of it will be read): no batch of it is
     * taken from now on, and once those under way have ended (a batch removed while it is written
     * would leave what it writes next, with no one to remove it), its folder, for the caller to
     * remove (core.releaseDrops keeps a drop a job needs). Undefined when this stage made none.
     */
    async release(drop: string): Promise<string | undefined> {
      if (!isStagedDropName(drop)) return undefined;
      released.add(drop);
      await Promise.allSettled([...(underWay.get(drop) ?? [])]);
      used.delete(drop);
      held.delete(drop);
      const dropDir = join(root, drop);
      return made.has(dropDir) ? dropDir : undefined;
    },
    /** A drop folder that is gone: no longer this stage's to remove when the session ends. */
    forget(dropDir: string): void {
      made.delete(dropDir);
    },
    /** The drop folders this stage made. */
    drops: (): string[] => [...made],
    /** The page checks sizes before it uploads anything, so the user hears at once, not after gigabytes. */
    limits(res: ServerResponse): void {
      send(res, 200, JSON.stringify(limits), 'application/json');
    },
  };
}
