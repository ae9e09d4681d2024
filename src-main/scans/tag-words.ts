/**
 * A tag as DICOM writes it for people, "(0028,0030)": from its number (group << 16 | element), or as
 * dicom-parser names it ('x00280030').
 */
export function tagWords(tag: number | string): string {
  const n = typeof tag === 'string' ? Number.parseInt(tag.slice(1), 16) : tag;
  const hex = (v: number): string => v.toString(16).toUpperCase().padStart(4, '0');
  return `(${hex(Math.floor(n / 0x10000))},${hex(n % 0x10000)})`;
}
