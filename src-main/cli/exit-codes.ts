/** The command line's exit codes, documented in the README. */
export const EXIT = {
  ok: 0,
  jobFailed: 1,
  usage: 2,
  authFailed: 3,
} as const;

/** Thrown by a command to end with a given code and message (printed to stderr). */
export class CliExit extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
