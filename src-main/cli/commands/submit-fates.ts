import { isAppError } from '../../../src-shared/errors.js';
import { CliExit } from '../exit-codes.js';
import type { JobReport } from '../job-report.js';

/** What became of one series of a scan given to `scan2mesh submit`. */
export interface SeriesFate {
  /** The series key, as `scan2mesh status --json` gives it for its job (seriesId). */
  seriesId: string;
  /** The series as the messages on stderr name it: its description, else its key. */
  series: string;
  fate: 'submitted' | 'left-out' | 'refused' | 'not-sent';
  reason?: string;
  /** The folder under --out its meshes go to. */
  folder?: string;
  /** Another given scan that holds the same series (its Series Instance UID); sent as a scan of its own. */
  sameSeriesAs?: string;
}

/** What became of one scan (a path given on the command line), in the order given. */
export interface ScanFate {
  scan: string;
  fate: 'submitted' | 'left-out' | 'refused' | 'not-sent';
  reason?: string;
  series: SeriesFate[];
}

/**
 * The one JSON document `submit --json` prints, whatever the exit code: a script read nothing when a
 * scan was refused on one path (0 bytes, exit 2) and a document on another, and a series left out of
 * a folder was said on stderr only (a review). `refused` and `accepted` keep the shape they had:
 * structures the connection cannot make, or scans refused, each with its reason.
 */
export interface SubmitDocument {
  connection: string | null;
  jobs: JobReport[];
  refused: { name: string; reason: string }[];
  accepted?: string[];
  scans: ScanFate[];
  /** Why the command stopped, when it stopped on an error rather than on a refusal or with jobs. */
  error?: { code: string; message: string };
}

type Pending = Omit<ScanFate, 'fate'> & { fate: ScanFate['fate'] | 'pending' };

/** Collects each given scan's fate while `submit` runs, for the document it prints at the end. */
export class SubmitFates {
  private readonly scans: Pending[];
  private sent = false;
  connection: string | null = null;
  jobs: JobReport[] = [];
  refused: { name: string; reason: string }[] = [];
  accepted: string[] | undefined;
  error: { code: string; message: string } | undefined;

  constructor(given: string[]) {
    this.scans = given.map((scan) => ({ scan, fate: 'pending', series: [] }));
  }

  /** The scan given at place `i` is not read or not sent as a whole. */
  scanEnds(i: number, fate: 'left-out' | 'refused', reason: string): void {
    const s = this.scans[i];
    if (s) Object.assign(s, { fate, reason });
  }

  /** A series found in the scan given at place `i`; 'not-sent' until the jobs are submitted. */
  addSeries(i: number, fate: SeriesFate): void {
    this.scans[i]?.series.push(fate);
  }

  /** A series refused after the scans were read (the connection cannot make a mesh of it). */
  refuseSeries(seriesId: string, reason: string): void {
    for (const s of this.scans)
      for (const f of s.series)
        if (f.seriesId === seriesId && f.fate === 'not-sent') {
          Object.assign(f, { fate: 'refused', reason });
          Object.assign(s, { fate: 'refused', reason });
        }
  }

  /** The jobs of every series still to send were created. */
  submitted(): void {
    this.sent = true;
  }

  /** The error the command stopped on, as the exit code was chosen from it. */
  failed(e: unknown): void {
    const code = e instanceof CliExit ? 'usage' : isAppError(e) ? e.code : 'internal';
    this.error = { code, message: e instanceof Error ? e.message : String(e) };
  }

  document(): SubmitDocument {
    const scans = this.scans.map((s): ScanFate => {
      const series = s.series.map((f) =>
        f.fate === 'not-sent' && this.sent ? { ...f, fate: 'submitted' as const } : f,
      );
      if (s.fate !== 'pending') return { ...s, fate: s.fate, series };
      if (series.some((f) => f.fate === 'submitted')) return { scan: s.scan, fate: 'submitted', series };
      return {
        scan: s.scan,
        fate: 'not-sent',
        reason: 'Nothing was submitted: see the reasons given for the other scans or structures.',
        series: series.map((f) => (f.fate === 'not-sent' ? { ...f, reason: 'nothing was submitted' } : f)),
      };
    });
    return {
      connection: this.connection,
      jobs: this.jobs,
      refused: this.refused,
      ...(this.accepted ? { accepted: this.accepted } : {}),
      scans,
      ...(this.error ? { error: this.error } : {}),
    };
  }
}
