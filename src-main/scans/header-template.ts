/**
 * The last header the tag-only reader walked element by element: the headers of the next files of
 * its series are compared with it (see walkLike in header-tag-reader.ts). The files of one series
 * differ in a few elements (their UIDs, instance number, position, times); everything between is
 * the same bytes, recognised with one native comparison per stretch instead of a walk through it.
 */
export const VOLATILE = 0;
export const STABLE = 1;
export const UNKNOWN = 2;

/**
 * Top-level elements a template may have. Real headers have a few hundred; a crafted one may have
 * millions of empty elements, and is walked without a template rather than noted element by element.
 */
const MAX_ELEMENTS = 4096;
/** Bytes of header a template keeps a copy of: real ones take kilobytes, a few private blocks more. */
const MAX_BYTES = 1024 * 1024;

export class Template {
  /** True once a walk reached the pixel data: then the arrays below describe `bytes`. */
  valid = false;
  /** Changes whenever the template does: values decoded from it are kept under this number. */
  generation = 0;
  explicit = true;
  /** The header's bytes up to the pixel data element's tag (a copy: the reader's buffer is reused). */
  bytes = Buffer.alloc(0);
  /** Top-level elements of the data set before the pixel data. */
  count = 0;
  /** Where each element starts; top[count] is where the pixel data element starts. */
  top = new Int32Array(256);
  tag = new Float64Array(256);
  /** The reader's place in HEADER_TAGS after each element. */
  wantedAfter = new Int32Array(256);
  /** Whether each element was the same bytes in the headers compared with it: STABLE, VOLATILE, UNKNOWN. */
  stable = new Uint8Array(256);
  /** For a STABLE element, the first element after it that is not: the end of its stretch. */
  runEnd = new Int32Array(256);
  private runsKnown = false;
  private stretches: (Buffer | undefined)[] = [];
  /** The wanted tags found, in element order: element index, table slot, value offset, length. */
  found = 0;
  foundElement = new Int32Array(64);
  foundSlot = new Int32Array(64);
  foundOffset = new Int32Array(64);
  foundLength = new Int32Array(64);

  private tooMany = false;

  begin(explicit: boolean): void {
    this.valid = false;
    this.explicit = explicit;
    this.count = 0;
    this.found = 0;
    this.tooMany = false;
  }

  /** Notes a top-level element, before its value is walked. */
  add(pos: number, tag: number, wantedAfter: number): void {
    const n = this.count;
    if (n >= MAX_ELEMENTS || this.tooMany) {
      this.tooMany = true;
      return;
    }
    if (n + 1 >= this.top.length) {
      this.top = grown(this.top);
      this.tag = grown(this.tag);
      this.wantedAfter = grown(this.wantedAfter);
      this.stable = grown(this.stable);
      this.runEnd = grown(this.runEnd);
    }
    this.top[n] = pos;
    this.tag[n] = tag;
    this.wantedAfter[n] = wantedAfter;
    this.count = n + 1;
  }

  /** Notes a wanted tag's value, found in the element added last. */
  addFound(slot: number, offset: number, length: number): void {
    const n = this.found;
    if (this.tooMany) return;
    if (n >= this.foundSlot.length) {
      this.foundElement = grown(this.foundElement);
      this.foundSlot = grown(this.foundSlot);
      this.foundOffset = grown(this.foundOffset);
      this.foundLength = grown(this.foundLength);
    }
    this.foundElement[n] = this.count - 1;
    this.foundSlot[n] = slot;
    this.foundOffset[n] = offset;
    this.foundLength[n] = length;
    this.found = n + 1;
  }

  /**
   * The walk reached the pixel data element at `pixelStart`: keep the header as the template, with
   * the pixel data element's tag (comparisons look 4 bytes past an element). False when it is too
   * long or has too many elements to be one.
   */
  end(bytes: Buffer, pixelStart: number): boolean {
    const keep = pixelStart + 8;
    if (this.tooMany || keep > MAX_BYTES) return false;
    if (this.bytes.length < keep) this.bytes = Buffer.allocUnsafeSlow(Math.max(keep, 2 * this.bytes.length));
    bytes.copy(this.bytes, 0, 0, keep);
    this.top[this.count] = pixelStart;
    this.stable.fill(UNKNOWN, 0, this.count);
    this.runsKnown = false;
    this.generation++;
    this.valid = true;
    return true;
  }

  /** What comparing element k found. */
  learn(k: number, same: boolean): void {
    this.stable[k] = same ? STABLE : VOLATILE;
    this.runsKnown = false;
  }

  /** The stretch from k to j changed somewhere: its elements are to be compared one by one. */
  forget(k: number, j: number): void {
    this.stable.fill(UNKNOWN, k, j);
    this.runsKnown = false;
  }

  /**
   * The template's bytes of the stretch that starts at element k, and `extra` bytes after it: made
   * once per stretch, so that comparing a header with it allocates nothing.
   */
  stretch(k: number, extra: number): Buffer {
    let v = this.stretches[k];
    if (!v) {
      v = this.bytes.subarray(this.top[k]!, this.top[this.runEnd[k]!]! + extra);
      this.stretches[k] = v;
    }
    return v;
  }

  /** Brings runEnd up to date (one pass, only after `stable` changed). */
  findRuns(): void {
    if (this.runsKnown) return;
    this.stretches = [];
    let end = this.count;
    for (let k = this.count - 1; k >= 0; k--) {
      if (this.stable[k] === STABLE) this.runEnd[k] = end;
      else end = k;
    }
    this.runsKnown = true;
  }
}

function grown<T extends Int32Array | Float64Array | Uint8Array>(a: T): T {
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a);
  return b;
}
