// pino-roll ships no types: the part of its API this app uses (pino-roll.js, v4).
declare module 'pino-roll' {
  import type SonicBoom from 'sonic-boom';
  import type { SonicBoomOpts } from 'sonic-boom';

  interface PinoRollOptions extends Omit<SonicBoomOpts, 'dest' | 'fd'> {
    /** Base path: the files are `<name>.<n><ext>`, n growing by one at each roll. */
    file: string;
    /** Roll past this size: a number of MB, or '<n>k' / '<n>m' / '<n>b'. */
    size?: string | number;
    /** count: files kept besides the current one; removeOtherLogFiles: also earlier runs' files. */
    limit?: { count: number; removeOtherLogFiles?: boolean };
  }

  export default function pinoRoll(options: PinoRollOptions): Promise<SonicBoom>;
}
