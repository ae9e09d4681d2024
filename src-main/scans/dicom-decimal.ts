/**
 * Numbers as DICOM writes them in text (PS3.5 6.2): a Decimal String (DS) is an optional sign,
 * digits with an optional point, and an optional exponent, with spaces around it insignificant.
 * parseFloat reads the longest number a text starts with and drops the rest, so "1,5" (a comma for
 * the point, as some writers set to a European locale make it) read as 1 and "3O.5" as 3: slices
 * placed half a millimetre or more from where the scanner put them, with no word. pydicom refuses
 * such values; so does scan2mesh. Integer Strings (IS) are read by the same grammar: a value of
 * "2.0" is the integer 2, as pydicom reads it.
 */
export const DS_VALUE = /^ *[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)? *$/;

/** Whether a character code is padding around a value: a NUL or a space. */
const padding = (c: number): boolean => c === 0 || c === 0x20;

/** A DS or IS value (one of a backslash-separated list, NULs and spaces around it ignored): NaN when it is not one. */
export function decimalValue(text: string): number {
  let start = 0;
  let end = text.length;
  while (end > start && padding(text.charCodeAt(end - 1))) end--;
  while (start < end && padding(text.charCodeAt(start))) start++;
  const s = start === 0 && end === text.length ? text : text.slice(start, end);
  return DS_VALUE.test(s) ? Number(s) : NaN;
}
