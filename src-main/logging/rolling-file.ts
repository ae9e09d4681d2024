import { appendFileSync, readdirSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import type SonicBoom from 'sonic-boom';

interface RollingFileOptions {
  /** Base path, e.g. logs/scan2mesh.log: the files written are logs/scan2mesh.1.log, .2.log, … */
  file: string;
  /** A file that grows past this many bytes is closed and the next one started. */
  maxBytes: number;
  /**
   * At most this many files are kept, the one being written included; older ones are removed (pino-roll
   * counts the folder while the new file is being opened, so at times one fewer is left).
   */
  keep: number;
}

/** sonic-boom keeps these as public fields, though its types leave them out. */
interface StreamState {
  fd: number;
  destroyed: boolean;
}
const state = (dest: SonicBoom): StreamState => dest as unknown as StreamState;

/** Every file still open, so that a normal exit writes out what is still buffered. */
const open = new Set<RollingFile>();
let exitHookInstalled = false;

/**
 * A log file that pino-roll rolls over by size (it writes through sonic-boom: asynchronously, so a line
 * never waits for the disk), flushed synchronously when the process exits so no last line is lost.
 */
export class RollingFile {
  #dest: SonicBoom | undefined;
  /** Lines written before pino-roll has picked and opened its file (it looks at the folder first). */
  #pending: string[] = [];
  #opened: Promise<void>;
  #closed = false;
  /** Bytes handed over and bytes sonic-boom reported written: flush() waits until they meet. */
  #queued = 0;
  #written = 0;
  #caughtUp: (() => void)[] = [];

  constructor(private readonly opts: RollingFileOptions) {
    // Loaded when a file log is opened, not with this module: pino-roll pulls in all of date-fns
    // (about 100 ms of start-up), which the command line, logging to stderr only, never needs.
    this.#opened = import('pino-roll')
      .then(({ default: pinoRoll }) =>
        pinoRoll({
          file: opts.file,
          size: `${opts.maxBytes}b`,
          limit: { count: Math.max(1, opts.keep - 1), removeOtherLogFiles: true },
          // No mkdir: the logger made the folder (private); one removed since is not made again.
          mode: 0o600,
        }),
      )
      .then(
        (dest) =>
          new Promise<void>((ready) => {
            dest.on('write', (n: number) => {
              this.#written += n;
              if (this.#written >= this.#queued) this.#release();
            });
            // A full disk or a removed folder must not take the app down with it, nor hang a flush.
            dest.on('error', () => {
              this.#written = this.#queued;
              this.#release();
            });
            const flushPending = (): void => {
              this.#dest = dest;
              for (const line of this.#pending.splice(0)) dest.write(line);
              ready();
            };
            if (state(dest).fd >= 0) flushPending();
            else {
              dest.once('ready', flushPending);
              // A file that cannot be opened (its folder removed): nothing will be written, nothing waits.
              dest.once('error', () => ready());
            }
          }),
        () => undefined,
      );
    open.add(this);
    installExitHook();
  }

  #release(): void {
    for (const done of this.#caughtUp.splice(0)) done();
  }

  write(line: string): void {
    if (this.#closed) return;
    this.#queued += Buffer.byteLength(line);
    if (this.#dest) this.#dest.write(line);
    else this.#pending.push(line);
  }

  /** Resolves once every line written so far is on disk. */
  async flush(): Promise<void> {
    await this.#opened;
    if (!this.#dest || state(this.#dest).destroyed || this.#written >= this.#queued) return;
    await new Promise<void>((done) => this.#caughtUp.push(done));
  }

  /** Writes out what is buffered and closes the file; later lines are dropped. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    open.delete(this);
    await this.#opened;
    const dest = this.#dest;
    if (!dest || state(dest).destroyed) return;
    await new Promise<void>((done) => {
      dest.once('close', () => done());
      dest.end();
    });
  }

  /** At exit only: the event loop will not run again, so whatever is buffered is written now. */
  flushSyncAtExit(): void {
    try {
      if (this.#dest && !state(this.#dest).destroyed) this.#dest.flushSync();
      else if (this.#pending.length > 0)
        appendFileSync(newestFile(this.opts.file), this.#pending.splice(0).join(''), { mode: 0o600 });
    } catch {
      // Exiting anyway: a log line is not worth a crash report.
    }
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const file of open) file.flushSyncAtExit();
  });
}

/**
 * The file pino-roll goes on writing when it opens (the highest number in the folder), for the rare exit
 * that comes before it has opened one.
 */
function newestFile(base: string): string {
  const ext = extname(base);
  const name = basename(base, ext);
  const numbers = readdirSync(dirname(base)).map((f) => {
    const m =
      f.startsWith(`${name}.`) && f.endsWith(ext) ? /\.(\d+)$/.exec(f.slice(0, f.length - ext.length)) : null;
    return m ? Number(m[1]) : 1;
  });
  return join(dirname(base), `${name}.${Math.max(1, ...numbers)}${ext}`);
}
