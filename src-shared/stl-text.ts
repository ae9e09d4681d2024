/**
 * An ASCII STL's statements, read the same way by the download check and the viewer (three's
 * STLLoader is no longer used for ASCII: it gathers "vertex" lines across facets, so a facet of 4
 * corners and one of 2 became two triangles the file never had, and it reads a binary triangle
 * count at byte 80 of a file that may be shorter). A facet is "facet" (its normal is not used:
 * some writers put "nan" there), exactly three "vertex x y z" lines of decimal numbers, within
 * "outer loop" and "endloop" (which a few writers leave out), then "endfacet"; facets stand
 * between "solid" and "endsolid", and nothing else may stand anywhere (but a UTF-8 byte-order mark
 * before "solid", which Windows tools write).
 */
import { UTF8_BOM_LATIN1 } from './mesh-content.js';
import { LineSplitter, MeshFault, NO_TRIANGLES, decimal, fmt, isBinary, shown, words } from './mesh-text.js';

export interface StlSink {
  /** A facet's 3 corners' 9 coordinates. */
  facet(corners: readonly number[]): void;
}

/** Where the reader stands: before a solid, in one between facets, in a facet, in its loop, after. */
type State = 'start' | 'solid' | 'facet' | 'loop' | 'ended';

/** What may come next in each state, for the refusal. */
const EXPECTED: Record<State, string> = {
  start: '"solid"',
  solid: '"facet" or "endsolid"',
  facet: '"outer loop", "vertex" or "endfacet"',
  loop: '"vertex" or "endloop"',
  ended: '"solid" or the end of the file',
};

/** Reads an ASCII STL's text, handed over in pieces to `lines`; `finish` once it is all there. */
export class StlText {
  facets = 0;
  readonly lines: LineSplitter;
  private state: State = 'start';
  private readonly corners: number[] = [];
  /** The facet's loop was opened ("outer loop"). */
  private looped = false;
  private facetLine = 0;

  constructor(private readonly sink: StlSink) {
    this.lines = new LineSplitter('an ASCII STL', (line, lineNo, terminated) =>
      this.line(line, lineNo, terminated),
    );
  }

  private line(text: string, lineNo: number, terminated: boolean): void {
    const w = words(lineNo === 1 && text.startsWith(UTF8_BOM_LATIN1) ? text.slice(3) : text);
    const key = w[0];
    if (key === undefined) return;
    const state = this.state;
    if (key === 'vertex' && (state === 'loop' || (state === 'facet' && !this.looped))) {
      if (this.corners.length === 9)
        throw new MeshFault(
          `the facet of line ${fmt(this.facetLine)} has more than 3 vertices: STL facets are triangles`,
        );
      const xyz = [decimal(w[1]), decimal(w[2]), decimal(w[3])];
      if (w.length !== 4 || xyz.some(Number.isNaN))
        throw new MeshFault(
          terminated
            ? `line ${fmt(lineNo)} is a vertex whose coordinates are not 3 decimal numbers ("${shown(text)}")`
            : `it ends in the middle of a vertex ("${shown(text)}"), so it is truncated`,
        );
      this.corners.push(...xyz);
    } else if (key === 'solid' && (state === 'start' || state === 'ended')) this.state = 'solid';
    else if (key === 'endsolid' && state === 'solid') this.state = 'ended';
    else if (key === 'facet' && state === 'solid') {
      this.state = 'facet';
      this.facetLine = lineNo;
      this.corners.length = 0;
      this.looped = false;
    } else if (key === 'outer' && state === 'facet' && !this.looped && this.corners.length === 0) {
      this.state = 'loop';
      this.looped = true;
    } else if ((key === 'endloop' && state === 'loop') || (key === 'endfacet' && state === 'facet')) {
      if (this.corners.length !== 9)
        throw new MeshFault(
          `the facet of line ${fmt(this.facetLine)} has ${this.corners.length / 3} vertices, not 3: STL facets are triangles`,
        );
      if (key === 'endloop') this.state = 'facet';
      else {
        this.sink.facet(this.corners);
        this.facets++;
        this.state = 'solid';
      }
    } else if (isBinary(text))
      throw new MeshFault(
        `line ${fmt(lineNo)} holds binary data ("${shown(text, 12)}"): it is not an ASCII STL`,
      );
    else
      throw new MeshFault(
        terminated
          ? `line ${fmt(lineNo)} is "${shown(text)}" where ${EXPECTED[state]} should come: it is no well-formed ASCII STL`
          : `it ends in the middle of a statement ("${shown(text)}"), so it is truncated`,
      );
  }

  /** The text is all there: its last line, then what a whole mesh needs. */
  finish(): void {
    this.lines.end();
    if (this.state !== 'ended')
      throw new MeshFault(
        this.state === 'solid' || this.state === 'start'
          ? 'it is an ASCII STL that does not end with "endsolid", so it is truncated'
          : `it ends inside the facet of line ${fmt(this.facetLine)}, so it is truncated`,
      );
    if (this.facets === 0) throw new MeshFault(NO_TRIANGLES);
  }
}
