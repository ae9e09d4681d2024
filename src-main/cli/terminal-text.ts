/**
 * Text for a terminal. What the command line prints holds text it did not write: names and
 * descriptions from DICOM headers, file and zip entry names, the service's error messages. A
 * terminal obeys control characters in it: ESC sequences clear the screen, move the cursor over
 * earlier lines or set the window title, CR overwrites a line, and bidirectional overrides show
 * text in another order than it has. Each such character is shown as U+FFFD instead.
 */

// C0 controls but tab and newline, DEL, C1 controls, and the invisible direction marks, embeddings,
// overrides and isolates of Unicode.
// eslint-disable-next-line no-control-regex -- control characters are what these find
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- as above
const UNSAFE_OR_BREAK = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Whole output: its own newlines and tabs kept, every other control character shown as U+FFFD. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, '\uFFFD');
}

/** One line of output: as terminalSafe, and a newline inside it (a value's) cannot start another. */
export function oneLine(text: string): string {
  return text.replace(UNSAFE_OR_BREAK, (c) => (c === '\t' ? ' ' : '\uFFFD'));
}

/** Lines joined for output, each one line whatever its values hold. */
export function safeLines(lines: readonly string[]): string {
  return lines.map(oneLine).join('\n');
}

/** Standard output and standard error of the command line, through terminalSafe. */
export const terminal = {
  out: (text: string): boolean => process.stdout.write(terminalSafe(text)),
  err: (text: string): boolean => process.stderr.write(terminalSafe(text)),
};
