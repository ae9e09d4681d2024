import { Transform } from 'node:stream';
import type { Entry } from 'yauzl';
import { formatBytes } from '../../src-shared/format-bytes.js';

/** What one archive may unpack to, and the refusals, in words, of what passes it. */

/** Why an archive was refused, in plain words; the archive is then skipped as a whole. */
export class ArchiveRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveRefused';
  }
}

export interface ArchiveLimits {
  /** Most bytes one archive may unpack to; also capped by the free space of the target disk. */
  maxBytes: number;
  /** Most entries one archive may hold. */
  maxEntries: number;
  /**
   * Most times its compressed size that an archive, or one file in it, may unpack to, once past
   * `ratioFreeBytes`. DICOM deflates about 2-20 times even with much air around the head; a bomb,
   * thousands of times.
   */
  maxRatio?: number;
  /** Below this many unpacked bytes any ratio passes: one blank slice deflates a thousandfold. */
  ratioFreeBytes?: number;
}

export type Limits = Required<ArchiveLimits>;

export const DEFAULT_LIMITS: Limits = {
  maxBytes: 64 * 1024 ** 3,
  maxEntries: 200_000,
  maxRatio: 100,
  ratioFreeBytes: 64 * 1024 ** 2,
};

/** The limits given, the defaults for the rest (a field given as undefined takes its default too). */
export function withDefaults(limits: Partial<ArchiveLimits> | undefined): Limits {
  const out = { ...DEFAULT_LIMITS };
  for (const [k, v] of Object.entries(limits ?? {}) as [keyof Limits, number | undefined][])
    if (v !== undefined) out[k] = v;
  return out;
}

/** How a refusal for the ratio limit ends: what it means for the user. */
export const INFLATED_TOO_FAR = 'far more than a scan could (a damaged or hostile archive)';

/** Counts bytes flowing through and fails once more than `limit` have passed. */
export function byteLimit(limit: number, what: string): Transform {
  return countingLimit((seen) =>
    seen > limit ? new ArchiveRefused(`${what} unpacks to more than ${formatBytes(limit)}`) : null,
  );
}

/** Whether `unpacked` bytes from `packed` are more than a scan could give (see ArchiveLimits). */
export function inflatedTooFar(unpacked: number, packed: number, limits: Limits): boolean {
  return unpacked > limits.ratioFreeBytes && unpacked > limits.maxRatio * packed;
}

/**
 * byteLimit for a gunzipped stream, which also fails once the bytes unpacked pass the ratio limit
 * against the compressed bytes read so far: a gzip says nothing trustworthy about its size, so it is
 * judged as it flows.
 */
export function gzipLimit(
  limit: number,
  packedSoFar: () => number,
  limits: Limits,
  drop?: { bytes: number; refusal: string },
): Transform {
  return countingLimit((seen) =>
    seen > limit
      ? new ArchiveRefused(`the compressed file unpacks to more than ${formatBytes(limit)}`)
      : inflatedTooFar(seen, packedSoFar(), limits)
        ? new ArchiveRefused(`it unpacks to more than ${limits.maxRatio} times its size, ${INFLATED_TOO_FAR}`)
        : drop && seen > drop.bytes
          ? new ArchiveRefused(drop.refusal)
          : null,
  );
}

/** Passes bytes through, counting them, and fails with what `check` says once it says something. */
export function countingLimit(check: (seen: number) => Error | null): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      const refused = check(seen);
      if (refused) cb(refused);
      else cb(null, chunk);
    },
  });
}

/**
 * Refuses, before anything is read, a zip whose entries cannot be read or say they unpack absurdly:
 * a bomb is refused whatever its first bytes, and in words, not skipped as "not DICOM".
 */
export function checkEntries(files: Entry[], zipSize: number, limits: Limits): void {
  if (files.some((e) => e.isEncrypted())) {
    throw new ArchiveRefused(
      'it is protected by a password (encrypted), which scan2mesh cannot open: unzip it with its password and drop the folder',
    );
  }
  if (files.some((e) => !e.canDecodeFileData())) {
    throw new ArchiveRefused(
      'it is packed with a kind of compression scan2mesh cannot read: unzip it and drop the folder, or make the zip again with ordinary compression',
    );
  }
  const bomb = files.find((e) => inflatedTooFar(e.uncompressedSize, e.compressedSize, limits));
  if (bomb) {
    throw new ArchiveRefused(
      `one of its files says it unpacks to ${formatBytes(bomb.uncompressedSize)} from ${formatBytes(bomb.compressedSize)}, ${INFLATED_TOO_FAR}`,
    );
  }
  const declared = files.reduce((s, e) => s + e.uncompressedSize, 0);
  if (inflatedTooFar(declared, zipSize, limits)) {
    throw new ArchiveRefused(
      `it says it unpacks to ${formatBytes(declared)} from ${formatBytes(zipSize)}, ${INFLATED_TOO_FAR}`,
    );
  }
}
