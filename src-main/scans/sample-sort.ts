/**
 * Sorting the samples the slice checks read (a few thousand values per plane, tens of thousands per
 * scan). The samples of an int16 volume are whole numbers in a known range, which a count per value
 * puts in order in two passes: on 140 planes of 4,096 samples, 2 ms where the typed arrays' own sort
 * took 33 (it compares floats with care for NaN and -0, which int16 values never are).
 */

/** Sorts `a` ascending in place and returns it; `int16` says every value is an int16 value. */
export function sortSamples<A extends Float32Array | Float64Array>(a: A, int16: boolean): A {
  // A count per value costs the span of the values: worth it only for more samples than that.
  if (!int16 || a.length < 64) return a.sort() as A;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  const counts = new Uint32Array(hi - lo + 1);
  for (let i = 0; i < a.length; i++) counts[(a[i] as number) - lo]!++;
  let at = 0;
  for (let b = 0; b < counts.length; b++) {
    const value = b + lo;
    for (let c = counts[b] as number; c > 0; c--) a[at++] = value;
  }
  return a;
}
