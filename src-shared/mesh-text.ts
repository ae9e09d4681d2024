/**
 * How the mesh formats written as text (OBJ, ASCII STL, an ASCII PLY's body) are cut into lines,
 * words and numbers: one copy, for the download check (src-main/jobs) and the viewer's readers
 * (src-renderer/viewer/formats) alike. Two copies drifted: the check split words on any Unicode
 * space and took "0x1" and "1e0" as vertex numbers, the viewer did neither, so files the check kept
 * were refused or shown with faces missing.
 */

/** What is wrong with a mesh file, in words that end a sentence ("..., so it is truncated"). */
export class MeshFault extends Error {}

export const fmt = (n: number): string => n.toLocaleString('en-US');

/** What every reader says of a mesh without a triangle. */
export const NO_TRIANGLES = 'it holds no triangles: the mesh is empty';

/**
 * No line of a mesh is longer: a face of 10,000 corners takes 100 kB. A file without line breaks
 * (zeros, a stray binary) is refused once this much of it is read, instead of being held whole.
 */
export const MAX_LINE_BYTES = 1 << 20;

/**
 * What separates words: space, tab, and the CR of CRLF (with vertical tab and form feed, which
 * C's isspace also skips). Not a non-breaking space or any other non-ASCII byte: a line "f\xA01 2 3"
 * is no face, on both sides.
 */
export const isBlankByte = (b: number): boolean => b === 32 || b === 9 || b === 13 || b === 11 || b === 12;

/**
 * The words of a line, split at the blanks above. By character: a regular expression's split took
 * most of the time of reading a text mesh.
 */
export function words(line: string): string[] {
  const w: string[] = [];
  const n = line.length;
  for (let at = 0; ;) {
    while (at < n && isBlankByte(line.charCodeAt(at))) at++;
    if (at >= n) return w;
    const from = at;
    while (at < n && !isBlankByte(line.charCodeAt(at))) at++;
    w.push(line.slice(from, at));
  }
}

/**
 * The word's value when it is a finite decimal number as C's strtod writes one (no hex "0x1", no
 * "nan" or "inf", no "1_0", nor "1e999", which is no coordinate), else NaN. Read by character: it
 * runs on every number of a text mesh, where a regular expression per word took a quarter of the time.
 */
export function decimal(word: string | undefined): number {
  if (word === undefined) return NaN;
  const n = word.length;
  let at = 0;
  let c = word.charCodeAt(0);
  if (c === 43 || c === 45) c = word.charCodeAt(++at); // + -
  const start = at;
  while (c >= 48 && c <= 57) c = word.charCodeAt(++at);
  let digits = at - start;
  if (c === 46) {
    const after = ++at;
    c = word.charCodeAt(at);
    while (c >= 48 && c <= 57) c = word.charCodeAt(++at);
    digits += at - after;
  }
  if (digits === 0) return NaN;
  if (c === 101 || c === 69) {
    // e E, then an optional sign and at least one digit
    c = word.charCodeAt(++at);
    if (c === 43 || c === 45) c = word.charCodeAt(++at);
    if (!(c >= 48 && c <= 57)) return NaN;
    while (c >= 48 && c <= 57) c = word.charCodeAt(++at);
  }
  if (at !== n) return NaN;
  const v = Number(word);
  return Number.isFinite(v) ? v : NaN;
}

/**
 * A line or word quoted in a message: what does not print as \xNN, and at most about `max`
 * characters of that (binary data would otherwise fill the message with escapes).
 */
export function shown(text: string, max = 40): string {
  const t = text.replace(/^[ \t\r\v\f]+|[ \t\r\v\f]+$/g, '');
  let out = '';
  for (let k = 0; k < t.length; k++) {
    if (out.length >= max) return `${out}…`;
    const c = t.charCodeAt(k);
    out += c >= 0x20 && c < 0x7f ? t[k] : `\\x${c.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/** Whether text holds a control character (NUL and the like): bytes of binary data, not text. */
export function isBinary(text: string): boolean {
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if ((c < 0x20 && c !== 9 && c !== 11 && c !== 12 && c !== 13) || c === 0x7f) return true;
  }
  return false;
}

/**
 * Cuts text handed over in pieces (a file's chunks, each decoded as latin1) into lines, without
 * their "\n". Linear: each piece is searched once, and a line spread over pieces is joined once,
 * when it ends (joining the carried text to every new piece made a file without line breaks cost
 * the square of its size). A line longer than MAX_LINE_BYTES is refused as soon as it is.
 */
export class LineSplitter {
  private parts: string[] = [];
  private pending = 0;
  private lineNo: number;

  /**
   * `what`: the format, for the refusal ("an OBJ mesh"). `onLine` hears each line, its number and
   * whether a "\n" ended it (the last line of a file may have none). `firstLineNo`: the number of
   * the first line handed over (a PLY body starts after its header's lines).
   */
  constructor(
    private readonly what: string,
    private readonly onLine: (line: string, lineNo: number, terminated: boolean) => void,
    firstLineNo = 1,
  ) {
    this.lineNo = firstLineNo - 1;
  }

  push(text: string): void {
    let from = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
      if (this.pending + nl - from > MAX_LINE_BYTES) throw this.tooLong();
      const piece = text.slice(from, nl);
      const line = this.parts.length > 0 ? this.parts.join('') + piece : piece;
      this.parts = [];
      this.pending = 0;
      from = nl + 1;
      this.onLine(line, ++this.lineNo, true);
    }
    if (from >= text.length) return;
    this.pending += text.length - from;
    if (this.pending > MAX_LINE_BYTES) throw this.tooLong();
    this.parts.push(from === 0 ? text : text.slice(from));
  }

  /** The text is all there: its last line, when no "\n" ended it. */
  end(): void {
    if (this.parts.length === 0) return;
    const line = this.parts.join('');
    this.parts = [];
    this.pending = 0;
    this.onLine(line, ++this.lineNo, false);
  }

  private tooLong(): MeshFault {
    return new MeshFault(
      `line ${fmt(this.lineNo + 1)} is longer than ${fmt(MAX_LINE_BYTES)} bytes: not ${this.what}`,
    );
  }
}

/**
 * Where a statement was refused: the last line of a file that ends without a line break was cut
 * off there, most likely (a download stopped mid-way), so that is what is said.
 */
export function lineFault(lineNo: number, line: string, terminated: boolean, what: string): MeshFault {
  return new MeshFault(
    terminated
      ? `line ${fmt(lineNo)} is ${what} ("${shown(line)}")`
      : `it ends in the middle of a statement ("${shown(line)}"), so it is truncated`,
  );
}

/**
 * More vertices than a mesh's faces could use by over a million: a point cloud with a few faces,
 * not a surface (a mesh service never sends one). Every triangle uses at most three vertices.
 */
export function unusedVerticesFault(vertices: number, triangles: number): string | undefined {
  if (vertices - 3 * triangles <= 1_000_000) return undefined;
  return `it has ${fmt(vertices)} vertices but ${fmt(triangles)} ${triangles === 1 ? 'triangle, which uses' : 'triangles, which use'} at most ${fmt(3 * triangles)} of them: it is a point cloud with a few faces, not a surface mesh`;
}
