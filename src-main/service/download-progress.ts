// A download's write batches and progress (transfers.ts).

/** Socket reads gathered into one file write (see batched-file-writer.ts). */
export const DOWNLOAD_BATCH = 1024 * 1024;
/** The smallest write batch when a body's length is unknown (the size hint may be in kB). */
const MIN_GUESSED_BATCH = 64 * 1024;
/** Progress is told at most every this many bytes, not for each 16 KiB TLS record (see throttledProgress). */
const PROGRESS_STEP = 256 * 1024;
/** The size of the write batches when the answer gives no length: from the hint, whatever its unit. */
export function batchGuess(hint: number | undefined): number {
  return hint === undefined ? DOWNLOAD_BATCH : Math.max(MIN_GUESSED_BATCH, hint);
}

/** For the log: whether the service's size (unit unknown) matched the bytes. Either way the download stands. */
export function sizeHintNote(
  bytes: number,
  expectedSize: number | undefined,
): Record<string, number | boolean> {
  if (expectedSize === undefined) return {};
  return expectedSize === bytes ? { sizeConfirmed: true } : { announcedSize: expectedSize };
}

/**
 * onProgress every PROGRESS_STEP bytes or every percent of the total, whichever is smaller (a small
 * file still shows progress), and at the end (`last`). The total is read when the answer's head came:
 * its Content-Length, else the service's size hint while the bytes have not passed it.
 */
export function throttledProgress(
  onProgress: ((done: number, total: number | undefined) => void) | undefined,
  total: () => number | undefined,
): (done: number, last?: boolean) => void {
  if (!onProgress) return () => {};
  let step = PROGRESS_STEP;
  let next = 0;
  return (done, last = false) => {
    if (done < next && !last) return;
    const t = total();
    // The size hint may be in another unit than bytes: a total below the bytes so far is no total.
    const known = t !== undefined && t >= done ? t : undefined;
    if (done === 0)
      step = known ? Math.max(1, Math.min(PROGRESS_STEP, Math.floor(known / 100))) : PROGRESS_STEP;
    else if (known === undefined) step = PROGRESS_STEP;
    next = done + step;
    onProgress(done, known);
  };
}
